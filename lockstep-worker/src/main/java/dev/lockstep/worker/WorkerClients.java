package dev.lockstep.worker;

import java.time.Duration;
import java.util.HashMap;
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

    /**
     * A poll loop stuck this long gives its partitions up. Not shorter: a revocation waits for the
     * batches in flight, and their acknowledgements may rightly take up to the producer's
     * {@code delivery.timeout.ms} (30 s) while a reply partition's leader moves. A worker that
     * died or froze is out after the session timeout (6 s) instead.
     */
    private static final long CONSUMER_DEFAULT_MAX_POLL_INTERVAL_MS = 30_000;
    private static final int PRODUCER_DEFAULT_MAX_REQUEST_SIZE = 1024 * 1024;

    /**
     * How fast a worker that died is replaced. Kafka's defaults (a 45 s session) suit stream
     * processing, where a minute without a consumer only adds lag; here every caller of the dead
     * worker's partitions waits for its lock that long. A member silent for 6 s (the broker's
     * smallest session by default, {@code group.min.session.timeout.ms}) is out, heartbeats every
     * second tell the others to rebalance at once, and a poll loop stuck for 30 s gives up its
     * partitions (docs/operations.md#failover). With the consumer protocol of KIP-848
     * ({@code group.protocol=consumer}) the broker's group settings decide instead, and these two
     * are not set.
     */
    private static final Map<String, Object> GROUP_TIMEOUTS = Map.of(
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 6_000,
            ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 1_000);

    private WorkerClients() {
    }

    static KafkaConsumer<byte[], byte[]> consumer(WorkerSettings settings) {
        return new KafkaConsumer<>(consumerConfig(settings), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** The consumer's configuration: the group timeouts above under the operator's properties, the guarantees over them. */
    static Map<String, Object> consumerConfig(WorkerSettings settings) {
        // Partitions added to the command topic are assigned within the metadata's age: seconds, not
        // Kafka's five minutes, since commands sent there wait for their partition's worker.
        Map<String, Object> tuning = new HashMap<>(Map.of(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500,
                ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) CONSUMER_DEFAULT_MAX_POLL_INTERVAL_MS,
                ConsumerConfig.METADATA_MAX_AGE_CONFIG, 5_000));
        Object protocol = settings.kafka().with(Map.of()).get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        if (protocol == null || "classic".equalsIgnoreCase(protocol.toString().trim())) {
            tuning.putAll(GROUP_TIMEOUTS);
        }
        return settings.kafka().with(tuning, Map.of(
                ConsumerConfig.GROUP_ID_CONFIG, settings.groupId(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                // Never jump silently: a position the log no longer has (retention deleted records
                // this worker has not applied) is positioned anew from the database, with a quarantine.
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"));
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

    /** The producer's {@code max.request.size}: the largest record it sends (Kafka's default 1 MiB, or the operator's). */
    static int maxRequestSize(WorkerSettings settings) {
        Object configured = settings.kafka().with(Map.of()).get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        return configured == null ? PRODUCER_DEFAULT_MAX_REQUEST_SIZE : Integer.parseInt(configured.toString().trim());
    }

    static Admin admin(WorkerSettings settings) {
        return Admin.create(settings.kafka().with(Map.of()));
    }
}
