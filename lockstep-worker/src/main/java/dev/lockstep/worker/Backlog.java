package dev.lockstep.worker;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Records fetched for a partition while its previous batch is still applying, in offset order:
 * they become the partition's next batch the moment that batch is applied. Pausing the partition
 * instead would leave them on the broker until the consumer's next fetch after resuming, which
 * waits for the fetch in flight (up to {@code fetch.max.wait.ms}, 500 ms by default). A
 * partition is paused only when its backlog reaches {@link #LIMIT}, so memory stays bounded.
 * Used by the poll thread only.
 */
final class Backlog {

    /** Records held per partition before it is paused: a few polls' worth. */
    static final int LIMIT = 2_000;

    private final Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> waiting = new HashMap<>();

    /** Adds what a poll brought for a busy partition; true when the partition should now be paused. */
    boolean add(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
        List<ConsumerRecord<byte[], byte[]>> queue = waiting.computeIfAbsent(tp, k -> new ArrayList<>());
        queue.addAll(records);
        return queue.size() >= LIMIT;
    }

    /** The partition's waiting records, taken: its next batch. */
    Optional<List<ConsumerRecord<byte[], byte[]>>> take(TopicPartition tp) {
        return Optional.ofNullable(waiting.remove(tp));
    }

    /** Forgets the partitions' records: they are fetched again from where the partition is sought to. */
    void drop(Collection<TopicPartition> partitions) {
        waiting.keySet().removeAll(partitions);
    }

    boolean isEmpty() {
        return waiting.isEmpty();
    }

    void clear() {
        waiting.clear();
    }
}
