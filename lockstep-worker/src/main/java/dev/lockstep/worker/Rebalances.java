package dev.lockstep.worker;

import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the worker does when the group moves partitions, on the poll thread inside
 * {@code poll}: an assigned partition stays paused until it is positioned from the database; a
 * revoked one finishes its batches and hands over the offsets acknowledged; a lost one (another
 * worker may own it already) finishes its batches and commits nothing.
 */
final class Rebalances implements ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(Rebalances.class);

    private final Consumer<byte[], byte[]> consumer;
    private final PartitionPipeline pipeline;
    private final Backlog backlog;
    private final Assignments assignments;
    private final OffsetCommits commits;
    /** The ticker and the transaction watch: what acts on the partitions this worker applies. */
    private final List<AssignmentWatcher> watchers;
    private final WorkerHealth health;

    Rebalances(Consumer<byte[], byte[]> consumer, PartitionPipeline pipeline, Backlog backlog, Assignments assignments,
            OffsetCommits commits, List<AssignmentWatcher> watchers, WorkerHealth health) {
        this.consumer = consumer;
        this.pipeline = pipeline;
        this.backlog = backlog;
        this.assignments = assignments;
        this.commits = commits;
        this.watchers = List.copyOf(watchers);
        this.health = health;
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        LOG.info("partitions assigned: {}", partitions);
        backlog.drop(partitions);
        assignments.assigned(partitions);
        watchers.forEach(watcher -> watcher.assigned(numbers(partitions)));
        // A placeholder position, so the consumer looks up no committed offset: the partition
        // stays paused until it is sought to where the database says.
        partitions.forEach(tp -> consumer.seek(tp, 0));
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        backlog.drop(partitions);
        // Finish what runs for these partitions, then hand over their offsets.
        pipeline.await(partitions).stream()
                .filter(batch -> batch.stage() == PartitionPipeline.Stage.ACKNOWLEDGED)
                .forEach(batch -> commits.acknowledged(batch.partition(), batch.nextOffset()));
        commits.commitNow(partitions);
        gone(partitions);
        LOG.info("partitions revoked: {}", partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
        backlog.drop(partitions);
        pipeline.await(partitions);
        commits.forget(partitions);
        gone(partitions);
        LOG.warn("partitions lost (another worker may own them now): {}", partitions);
    }

    private void gone(Collection<TopicPartition> partitions) {
        assignments.revoked(partitions);
        watchers.forEach(watcher -> watcher.revoked(numbers(partitions)));
        partitions.forEach(tp -> health.dropped(tp.toString()));
    }

    private static List<Integer> numbers(Collection<TopicPartition> partitions) {
        return partitions.stream().map(TopicPartition::partition).toList();
    }
}
