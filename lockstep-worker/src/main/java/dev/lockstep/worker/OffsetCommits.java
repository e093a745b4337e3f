package dev.lockstep.worker;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The command offsets the worker may commit: those whose replies the broker acknowledged.
 * Committed asynchronously at most every {@link #INTERVAL}, and synchronously when partitions are
 * handed over or the worker stops. The database's progress row, not the offset, is what prevents
 * a second application and where a partition resumes, so a late commit only costs replies sent
 * again after a crash; a commit per batch was one write to the offsets topic per batch, a large
 * share of the broker's work at a few hundred commands a second. Poll thread only.
 */
final class OffsetCommits {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommits.class);

    private final Consumer<byte[], byte[]> consumer;
    /** How often acknowledged offsets are committed while the worker runs. */
    static final Duration INTERVAL = Duration.ofMillis(500);

    /** Acknowledged, perhaps not yet committed (commits are asynchronous). */
    private final Map<TopicPartition, OffsetAndMetadata> acknowledged = new HashMap<>();
    /** Acknowledged since the last asynchronous commit. */
    private final Map<TopicPartition, OffsetAndMetadata> unsent = new HashMap<>();
    private long lastCommitNanos = System.nanoTime();

    OffsetCommits(Consumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    /** Records these as acknowledged; they are committed, without waiting, by the next due {@link #flushIfDue}. */
    void commitAsync(Map<TopicPartition, OffsetAndMetadata> done) {
        acknowledged.putAll(done);
        unsent.putAll(done);
        flushIfDue();
    }

    /** Commits, without waiting, what was acknowledged since the last commit, once {@link #INTERVAL} has passed. */
    void flushIfDue() {
        if (unsent.isEmpty() || System.nanoTime() - lastCommitNanos < INTERVAL.toNanos()) {
            return;
        }
        lastCommitNanos = System.nanoTime();
        Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(unsent);
        unsent.clear();
        consumer.commitAsync(offsets, (committed, error) -> {
            if (error != null) {
                LOG.warn("committing offsets failed (records will be redelivered and answered again): {}",
                        error.getMessage());
            }
        });
    }

    /** Records an acknowledged offset to commit with {@link #commitNow}. */
    void acknowledged(TopicPartition partition, long nextOffset) {
        acknowledged.put(partition, new OffsetAndMetadata(nextOffset));
    }

    /** Forgets what these partitions acknowledged: they were lost, another worker owns them. */
    void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(acknowledged::remove);
        partitions.forEach(unsent::remove);
    }

    /** Commits the latest acknowledged offsets of {@code partitions}, waiting for the broker. */
    void commitNow(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        partitions.forEach(tp -> {
            unsent.remove(tp);
            OffsetAndMetadata offset = acknowledged.remove(tp);
            if (offset != null) {
                offsets.put(tp, offset);
            }
        });
        if (offsets.isEmpty()) {
            return;
        }
        try {
            consumer.commitSync(offsets);
        } catch (KafkaException e) {
            LOG.warn("committing offsets {} failed (records will be redelivered and answered again): {}", offsets,
                    e.getMessage());
        }
    }

    /** Commits every acknowledged offset, waiting: the worker stops. */
    void commitAll() {
        commitNow(List.copyOf(acknowledged.keySet()));
    }
}
