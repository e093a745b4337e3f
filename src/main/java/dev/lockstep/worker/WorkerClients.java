package dev.lockstep.worker;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The worker's Kafka clients, configured for what the worker relies on. Tuning values are
 * measured in docs/benchmarks.md; {@code --kafka-config} may change them, never the guarantees.
 */
final class WorkerClients {

    private static final long CONSUMER_DEFAULT_MAX_POLL_INTERVAL_MS = 300_000;

    private WorkerClients() {
    }

    static KafkaConsumer<byte[], byte[]> consumer(WorkerSettings settings) {
        return new KafkaConsumer<>(settings.kafka().with(
                Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500), Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, settings.groupId(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                // Never jump silently: a position the log no longer has (retention deleted records
                // this worker has not applied) is positioned anew from the database, with a quarantine.
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    static KafkaProducer<byte[], byte[]> producer(WorkerSettings settings) {
        return new KafkaProducer<>(settings.kafka().with(Map.of(
                // Twelve apply threads publish side by side: a millisecond's linger merges their
                // replies into fewer produce requests. With 0, bench --trace at 2,000/s measured
                // twice the broker's acknowledgement time and p99 (docs/benchmarks.md).
                ProducerConfig.LINGER_MS_CONFIG, 1,
                // Surface an unreachable broker within 30 s so the batch is rewound and retried.
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000), Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)),
                new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The consumer's {@code max.poll.interval.ms}: a poll loop slower than this has lost its partitions. */
    static Duration maxPollInterval(WorkerSettings settings) {
        Object configured = settings.kafka().with(Map.of()).get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG);
        return Duration.ofMillis(configured == null ? CONSUMER_DEFAULT_MAX_POLL_INTERVAL_MS
                : Long.parseLong(configured.toString().trim()));
    }

    static Admin admin(WorkerSettings settings) {
        return Admin.create(settings.kafka().with(Map.of()));
    }
}
