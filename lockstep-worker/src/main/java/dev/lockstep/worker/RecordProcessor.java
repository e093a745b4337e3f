package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.store.PartitionId;
import java.util.List;

/** Turns one partition's records from one poll into what to publish for them. */
public interface RecordProcessor {

    /**
     * @param records one partition's records, in offset order
     * @param floor the offset the partition's stored position must be at or above (this worker
     *     positioned it there or committed up to it); below it, the database lost commits and the
     *     batch is refused with {@link DatabaseBehindException}
     */
    List<Outbound> process(PartitionId partition, List<Inbound> records, long floor);

    /** As {@link #process(PartitionId, List, long)}, for a caller with no position to hold the database to. */
    default List<Outbound> process(PartitionId partition, List<Inbound> records) {
        return process(partition, records, 0);
    }
}
