package dev.lockstep.worker;

import dev.lockstep.store.PartitionId;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The poll loop's rules for batches that moved on ({@link PartitionPipeline.Settled}): the offsets
 * of acknowledged batches are committed, a partition whose batch failed goes back to that batch's
 * first offset, one whose database stood behind is positioned from the database again, one whose
 * batch applied takes what arrived meanwhile as its next batch, and the partitions that are free
 * are resumed. Poll thread only.
 */
final class Settlement {

    /** What settling asks of the assignment ({@link Assignments}). */
    interface Positions {

        /** Whether the partition may be fetched and applied. */
        boolean applicable(TopicPartition tp);

        /** A batch of the partition up to {@code nextOffset} was committed to the database. */
        void committed(TopicPartition tp, long nextOffset);

        /** The partitions must be positioned from the database again (paused meanwhile). */
        void reposition(Collection<TopicPartition> partitions);
    }

    /** Starts a partition's next batch. */
    interface Submitter {
        void submit(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch, long polledAt);
    }

    private final Consumer<byte[], byte[]> consumer;
    private final Positions positions;
    private final Backlog backlog;
    private final OffsetCommits commits;
    private final WorkerHealth health;
    private final Map<PartitionId, Long> acknowledged;

    /** @param acknowledged below these offsets every reply was acknowledged; raised here */
    Settlement(Consumer<byte[], byte[]> consumer, Positions positions, Backlog backlog, OffsetCommits commits,
            WorkerHealth health, Map<PartitionId, Long> acknowledged) {
        this.consumer = consumer;
        this.positions = positions;
        this.backlog = backlog;
        this.commits = commits;
        this.health = health;
        this.acknowledged = acknowledged;
    }

    /**
     * Settles {@code settled}.
     *
     * @param applying whether a batch of the partition is applying (it stays paused)
     * @return whether a batch failed: the loop backs off before it polls again
     */
    boolean settle(List<PartitionPipeline.Settled> settled, Predicate<TopicPartition> applying, Submitter submitter) {
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        Set<TopicPartition> free = new HashSet<>();
        boolean failed = false;
        // Failures first: a partition going back to an earlier offset has no backlog to go on with,
        // even when a batch of it applied in the same round (that batch is then stale; its backlog,
        // started now, would release offsets whose replies were never acknowledged).
        for (PartitionPipeline.Settled batch : settled) {
            if (batch.stage() == PartitionPipeline.Stage.FAILED) {
                backlog.drop(List.of(batch.partition()));
                consumer.seek(batch.partition(), batch.firstOffset());
                free.add(batch.partition());
                failed = true;
            } else if (batch.stage() == PartitionPipeline.Stage.BEHIND) {
                // Paused until positioned where the database stands, like a partition just assigned.
                backlog.drop(List.of(batch.partition()));
                positions.reposition(List.of(batch.partition()));
            }
        }
        for (PartitionPipeline.Settled batch : settled) {
            switch (batch.stage()) {
                case APPLIED -> {
                    positions.committed(batch.partition(), batch.nextOffset());
                    health.batchCommitted(batch.partition().toString());
                    // What arrived meanwhile is the next batch, now: no fetch to wait for.
                    backlog.take(batch.partition()).filter(next -> positions.applicable(batch.partition()))
                            .ifPresent(next -> submitter.submit(batch.partition(), next, System.nanoTime()));
                    free.add(batch.partition());
                }
                case ACKNOWLEDGED -> done.put(batch.partition(), new OffsetAndMetadata(batch.nextOffset()));
                case DISCARDED -> free.add(batch.partition());
                case FAILED, BEHIND -> {
                    // settled above
                }
            }
        }
        done.forEach((tp, offset) -> acknowledged.merge(new PartitionId(tp.topic(), tp.partition()), offset.offset(),
                Math::max));
        consumer.resume(free.stream().filter(positions::applicable).filter(consumer.assignment()::contains)
                .filter(applying.negate()).toList());
        commits.commitAsync(done);
        return failed;
    }
}
