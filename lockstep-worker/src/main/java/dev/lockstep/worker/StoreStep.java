package dev.lockstep.worker;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.CheckpointPolicy;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The worker's batch step without Kafka: one partition's records applied in one transaction, as
 * the worker applies them after a poll. For {@code lockstep bench --store}, which measures the
 * database's share of a command apart from the broker's.
 *
 * <pre>{@code
 * StoreStep step = StoreStep.start(store, new PartitionId("bench", 0), settings);
 * List<Outbound> replies = step.apply(records);
 * }</pre>
 */
public final class StoreStep {

    private final BatchProcessor processor;
    private final PartitionId partition;

    private StoreStep(BatchProcessor processor, PartitionId partition) {
        this.processor = processor;
        this.partition = partition;
    }

    /** Records the partition's first epoch, as a worker does when it is first assigned the partition. */
    public static StoreStep start(LockStore store, PartitionId partition, EngineSettings settings) {
        store.inPartition(partition, tx -> {
            tx.begin(new StoredPartition(Optional.of("store-step"), PartitionPosition.START, Optional.of(settings)),
                    EpochOrigin.FIRST_START, "lockstep bench --store");
            return null;
        });
        BatchProcessor processor = new BatchProcessor(store, new PartitionMachine(settings), Optional::empty,
                any -> 0L, CheckpointPolicy.OFF, new WorkerMetrics(new SimpleMeterRegistry(), Clock.systemUTC()));
        return new StoreStep(processor, partition);
    }

    /** @param records the partition's next records, in offset order */
    public List<Outbound> apply(List<Inbound> records) {
        return processor.process(partition, records);
    }
}
