package dev.lockstep.testkit;

import dev.lockstep.kafka.KafkaSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;

/** Reads every record of a topic from its beginning on a background thread, for assertions. */
public final class TopicCollector implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final List<ConsumerRecord<byte[], byte[]>> records = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;

    private TopicCollector(KafkaConsumer<byte[], byte[]> consumer, String topic) {
        this.consumer = consumer;
        this.thread = new Thread(this::pollLoop, "collector-" + topic);
    }

    public static TopicCollector start(KafkaSettings kafka, String topic) {
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.with(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        TopicCollector collector = new TopicCollector(consumer, topic);
        collector.thread.start();
        return collector;
    }

    private void pollLoop() {
        try {
            while (running) {
                consumer.poll(Duration.ofMillis(100)).forEach(records::add);
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    public List<ConsumerRecord<byte[], byte[]>> all() {
        return new ArrayList<>(records);
    }

    public List<ConsumerRecord<byte[], byte[]>> matching(Predicate<ConsumerRecord<byte[], byte[]>> filter) {
        return records.stream().filter(filter).toList();
    }

    /** Waits until at least {@code count} records match, and returns them all. */
    public List<ConsumerRecord<byte[], byte[]>> await(Predicate<ConsumerRecord<byte[], byte[]>> filter, int count) {
        return Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> matching(filter), found -> found.size() >= count);
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
