package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.store.PartitionId;
import java.util.List;

/** Turns one partition's records from one poll into what to publish for them. */
interface RecordProcessor {

    /** @param records one partition's records, in offset order */
    List<Outbound> process(PartitionId partition, List<Inbound> records);
}
