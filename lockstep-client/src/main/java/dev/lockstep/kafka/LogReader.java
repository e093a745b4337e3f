package dev.lockstep.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads partitions from their start up to their end as it was when asked (the last stable offset:
 * committed records only, as the worker reads them): no group, no commits.
 */
public final class LogReader implements AutoCloseable {

    /** A partition's retained range. */
    public record Bounds(long start, long end) {
    }

    private final KafkaConsumer<byte[], byte[]> consumer;

    public LogReader(KafkaSettings kafka) {
        this.consumer = new KafkaConsumer<>(kafka.with(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                // What the worker reads: a record of an aborted (or still open) transaction never
                // counted, so a replay or an audit must not count it either.
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000,
                ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 64 * 1024 * 1024,
                ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024 * 1024)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    public Bounds bounds(TopicPartition partition) {
        long start = consumer.beginningOffsets(List.of(partition)).get(partition);
        long end = consumer.endOffsets(List.of(partition)).get(partition);
        return new Bounds(start, end);
    }

    /** Hands every record of {@code partition} within {@code bounds} to {@code sink}, in offset order. */
    public void read(TopicPartition partition, Bounds bounds, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        consumer.assign(List.of(partition));
        consumer.seek(partition, bounds.start());
        while (consumer.position(partition) < bounds.end()) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                if (record.offset() < bounds.end()) {
                    sink.accept(record);
                }
            }
        }
    }

    /** Every record of {@code topic}'s {@code partitions} (all when empty) as it is now, partition by partition. */
    public void readAll(String topic, Set<Integer> partitions, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        readAll(bounds(topic, partitions), sink);
    }

    /** The retained range of each of {@code topic}'s {@code partitions} (all when empty) as it is now, by partition. */
    public Map<TopicPartition, Bounds> bounds(String topic, Set<Integer> partitions) {
        List<TopicPartition> wanted = consumer.partitionsFor(topic).stream()
                .filter(info -> partitions.isEmpty() || partitions.contains(info.partition()))
                .map(info -> new TopicPartition(topic, info.partition()))
                .sorted(Comparator.comparingInt(TopicPartition::partition)).toList();
        Map<TopicPartition, Long> starts = consumer.beginningOffsets(wanted);
        Map<TopicPartition, Long> ends = consumer.endOffsets(wanted);
        Map<TopicPartition, Bounds> bounds = new LinkedHashMap<>();
        wanted.forEach(partition -> bounds.put(partition, new Bounds(starts.get(partition), ends.get(partition))));
        return bounds;
    }

    /** Every record within each partition's {@code bounds}, partition by partition. */
    public void readAll(Map<TopicPartition, Bounds> bounds, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        bounds.forEach((partition, range) -> read(partition, range, sink));
    }

    /** The first offset of {@code partition} whose timestamp is at or after {@code time}; empty when none is yet. */
    public Optional<Long> offsetAt(TopicPartition partition, Instant time) {
        OffsetAndTimestamp found = consumer.offsetsForTimes(Map.of(partition, time.toEpochMilli())).get(partition);
        return Optional.ofNullable(found).map(OffsetAndTimestamp::offset);
    }

    /** The record at {@code offset}; empty when the log no longer (or not yet) has it. */
    public Optional<ConsumerRecord<byte[], byte[]>> recordAt(TopicPartition partition, long offset) {
        Bounds bounds = bounds(partition);
        if (offset < bounds.start() || offset >= bounds.end()) {
            return Optional.empty();
        }
        List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
        read(partition, new Bounds(offset, offset + 1), found::add);
        return found.stream().filter(r -> r.offset() == offset).findFirst();
    }

    /**
     * Hands every record from {@code from} on to {@code sink} as it arrives, across the partitions,
     * until {@code keepGoing} says stop (checked at least every {@code poll}).
     */
    public void follow(Map<TopicPartition, Long> from, Consumer<ConsumerRecord<byte[], byte[]>> sink,
            BooleanSupplier keepGoing, Duration poll) {
        consumer.assign(from.keySet());
        from.forEach(consumer::seek);
        while (keepGoing.getAsBoolean()) {
            consumer.poll(poll).forEach(sink);
        }
    }

    /** How many partitions {@code topic} has. */
    public int partitionCount(String topic) {
        return consumer.partitionsFor(topic).size();
    }

    @Override
    public void close() {
        consumer.close();
    }
}
