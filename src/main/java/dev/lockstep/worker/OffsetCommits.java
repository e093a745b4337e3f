package dev.lockstep.worker;

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
 * Committed asynchronously as batches settle, and synchronously when partitions are handed over or
 * the worker stops. The database's progress row, not the offset, is what prevents a second
 * application, so a lost or late commit only costs replies sent again. Poll thread only.
 */
final class OffsetCommits {

    private static final Logger LOG = LoggerFactory.getLogger(OffsetCommits.class);

    private final Consumer<byte[], byte[]> consumer;
    /** Acknowledged, perhaps not yet committed (commits are asynchronous). */
    private final Map<TopicPartition, OffsetAndMetadata> acknowledged = new HashMap<>();

    OffsetCommits(Consumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
    }

    /** Records these as acknowledged and commits them without waiting. */
    void commitAsync(Map<TopicPartition, OffsetAndMetadata> done) {
        if (done.isEmpty()) {
            return;
        }
        acknowledged.putAll(done);
        consumer.commitAsync(done, (offsets, error) -> {
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
    }

    /** Commits the latest acknowledged offsets of {@code partitions}, waiting for the broker. */
    void commitNow(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        partitions.forEach(tp -> {
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
