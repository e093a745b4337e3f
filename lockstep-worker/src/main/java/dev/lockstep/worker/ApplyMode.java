package dev.lockstep.worker;

import dev.lockstep.engine.PartitionMachine;
import java.util.List;

/**
 * How a worker applies the records of one poll. The product always uses {@link #BATCH}; the
 * other two exist so that {@code lockstep bench} can measure it against its baselines with the
 * very same Kafka loop.
 */
public enum ApplyMode {
    /** One transaction per partition batch, a constant number of statements per batch. */
    BATCH,
    /**
     * The seed API's design: one command per transaction, answered right after it (a benchmark
     * baseline); partitions still run side by side.
     */
    PER_COMMAND,
    /** No database: every valid command gets a fixed reply ({@code not_acquired} or {@code not_found}; the Kafka ceiling). */
    ECHO;

    RecordProcessor processor(BatchProcessor batches, PartitionMachine machine, OutboundPublisher publisher) {
        return switch (this) {
            case BATCH -> batches;
            case PER_COMMAND -> (partition, records, floor) -> {
                records.forEach(record -> publisher.publishAll(batches.process(partition, List.of(record), floor)));
                return List.of();
            };
            case ECHO -> new EchoProcessor(machine);
        };
    }
}
