package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.store.PartitionId;
import java.util.ArrayList;
import java.util.List;

/** Turns one partition's records from one poll into what to publish for them. */
public interface RecordProcessor {

    /** One partition's records for {@link #processTogether(List)}, as {@link #process(PartitionId, List, long)} takes them. */
    record Part(PartitionId partition, List<Inbound> records, long floor) {
    }

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

    /**
     * Several partitions' records, each part as {@link #process(PartitionId, List, long)} would,
     * in one transaction where the processor has one: all parts applied, or none. This default
     * processes the parts one after another, for processors that keep no state of their own (a
     * benchmark's baselines).
     *
     * @param parts at most one per partition, in {@link PartitionId#ORDER}
     * @return what to publish for each part, in the order of {@code parts}
     * @throws PartitionFailure naming the part that failed, and why; none of the parts is applied
     */
    default List<List<Outbound>> processTogether(List<Part> parts) {
        List<List<Outbound>> out = new ArrayList<>(parts.size());
        for (Part part : parts) {
            try {
                out.add(process(part.partition(), part.records(), part.floor()));
            } catch (RuntimeException e) {
                throw new PartitionFailure(part.partition(), e);
            }
        }
        return out;
    }
}
