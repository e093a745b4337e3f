package dev.lockstep.bench;

import dev.lockstep.engine.Echo;
import dev.lockstep.worker.Applying;
import dev.lockstep.worker.RecordProcessor;
import java.util.List;

/**
 * What a benchmarked worker does with each partition batch: the product's way, and the two
 * baselines it is measured against, all through the worker's same Kafka loop so that the
 * differences between them are the database work alone. The baselines live here, not in the
 * worker: the product never runs them.
 */
public enum BenchMode implements Applying {
    /** No database: every valid command gets a fixed reply ({@code not_acquired} or {@code not_found}): the Kafka ceiling. */
    ECHO("echo") {
        @Override
        public RecordProcessor processor(Parts parts) {
            Echo echo = new Echo(parts.machine().settings());
            return (partition, records, floor) -> records.stream().flatMap(r -> echo.answer(r).stream()).toList();
        }
    },
    /**
     * The seed API's design: one command per transaction, answered right after it; partitions
     * still run side by side.
     */
    PER_COMMAND("per-command") {
        @Override
        public RecordProcessor processor(Parts parts) {
            return (partition, records, floor) -> {
                records.forEach(record -> parts.publishNow().accept(
                        parts.batches().process(partition, List.of(record), floor)));
                return List.of();
            };
        }
    },
    /** The product: one transaction per partition batch. */
    LOCKSTEP("lockstep") {
        @Override
        public RecordProcessor processor(Parts parts) {
            return BATCHES.processor(parts);
        }
    };

    private final String wireName;

    BenchMode(String wireName) {
        this.wireName = wireName;
    }

    /** The name results and the --modes option use. */
    public String wireName() {
        return wireName;
    }
}
