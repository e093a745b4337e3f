package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.store.PartitionId;
import java.util.List;

/**
 * The benchmark's ceiling: decodes and routes every record exactly as the worker does, but
 * answers without a database, so that what it measures is Kafka request-reply alone.
 */
final class EchoProcessor implements RecordProcessor {

    private final PartitionMachine machine;

    EchoProcessor(PartitionMachine machine) {
        this.machine = machine;
    }

    @Override
    public List<Outbound> process(PartitionId partition, List<Inbound> records, long floor) {
        return records.stream().map(machine::echo).toList();
    }
}
