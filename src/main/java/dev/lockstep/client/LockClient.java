package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.ReplyDecoder;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import dev.lockstep.protocol.TopicNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Sends lock commands and waits for their replies: one request at a time.
 *
 * <p>Each call picks one partition of the reply topic, starts reading it at its end, and asks
 * the worker (header {@code kafka_replyPartition}) to answer there, so the client reads one
 * partition rather than every reply of every caller. Replies for other request IDs on that
 * partition are skipped. Not thread-safe: use one instance per thread.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.connect(KafkaSettings.of("127.0.0.1:9092"), TopicNames.DEFAULT)) {
 *     ReplyMessage reply = client.acquire("payment:42", "worker-1", Duration.ofSeconds(30), Duration.ofSeconds(10));
 *     if (reply.outcome() == Outcome.ACQUIRED) {
 *         long token = reply.json().path("lock").path("fencing_token").asLong();
 *         // ... work, passing the token to the protected resource ...
 *     }
 * }
 * }</pre>
 */
public final class LockClient implements AutoCloseable {

    private static final Duration POLL = Duration.ofMillis(100);

    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicNames topics;
    private final Clock clock;
    private final String bootstrapServers;

    private LockClient(KafkaProducer<byte[], byte[]> producer, KafkaConsumer<byte[], byte[]> consumer,
            TopicNames topics, Clock clock, String bootstrapServers) {
        this.bootstrapServers = bootstrapServers;
        this.producer = producer;
        this.consumer = consumer;
        this.topics = topics;
        this.clock = clock;
    }

    /** Creates the Kafka clients; they connect lazily, on the first command. */
    public static LockClient connect(KafkaSettings kafka, TopicNames topics) {
        return connect(kafka, topics, Duration.ofSeconds(15));
    }

    /**
     * @param metadataTimeout how long a command waits for the cluster's metadata before it fails
     *     with a {@link KafkaException} saying the broker or topic cannot be reached
     */
    public static LockClient connect(KafkaSettings kafka, TopicNames topics, Duration metadataTimeout) {
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.with(Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, metadataTimeout.toMillis())),
                new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.with(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        return new LockClient(producer, consumer, topics, Clock.systemUTC(), kafka.bootstrapServers());
    }

    public static String newRequestId() {
        return UUID.randomUUID().toString();
    }

    public ReplyMessage acquire(String resource, String owner, Duration ttl, Duration timeout) {
        return execute(new Command.Acquire(newRequestId(), resource, owner, ttl), timeout);
    }

    public ReplyMessage renew(String resource, String owner, Duration ttl, OptionalLong token, Duration timeout) {
        return execute(new Command.Renew(newRequestId(), resource, owner, ttl, token), timeout);
    }

    public ReplyMessage release(String resource, String owner, OptionalLong token, Duration timeout) {
        return execute(new Command.Release(newRequestId(), resource, owner, token), timeout);
    }

    public ReplyMessage status(String resource, Duration timeout) {
        return execute(new Command.Status(newRequestId(), resource), timeout);
    }

    /**
     * Publishes the command and waits for its reply.
     *
     * @throws LockTimeoutException when no reply came in time
     * @throws KafkaException when the broker cannot be reached or refuses the command
     */
    public ReplyMessage execute(Command command, Duration timeout) {
        Instant deadline = clock.instant().plus(timeout);
        TopicPartition replyPartition = listenOnRandomPartition();
        RecordHeaders headers = new RecordHeaders();
        headers.add("kafka_replyTopic", topics.replies().getBytes(StandardCharsets.UTF_8));
        headers.add("kafka_replyPartition", ByteBuffer.allocate(Integer.BYTES).putInt(replyPartition.partition()).array());
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topics.commands(), null,
                CommandEncoder.key(command), CommandEncoder.encode(command, Optional.empty()), headers);
        try {
            producer.send(record).get(remaining(deadline).toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new KafkaException("publishing to " + topics.commands() + " failed: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new LockTimeoutException(command.requestId(), timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while publishing", e);
        }
        while (!remaining(deadline).isZero()) {
            for (ConsumerRecord<byte[], byte[]> reply : consumer.poll(min(POLL, remaining(deadline)))) {
                Optional<ReplyMessage> message = ReplyDecoder.decode(reply.value())
                        .filter(m -> m.requestId().equals(command.requestId()));
                if (message.isPresent()) {
                    return message.get();
                }
            }
        }
        throw new LockTimeoutException(command.requestId(), timeout);
    }

    private TopicPartition listenOnRandomPartition() {
        List<PartitionInfo> partitions;
        try {
            partitions = producer.partitionsFor(topics.replies());
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new KafkaException("no answer from Kafka at " + bootstrapServers + " about topic " + topics.replies()
                    + " (is the broker running, and were the topics created with 'lockstep topics apply'?)", e);
        }
        if (partitions.isEmpty()) {
            throw new KafkaException("reply topic " + topics.replies() + " has no partitions");
        }
        TopicPartition tp = new TopicPartition(topics.replies(),
                partitions.get(ThreadLocalRandom.current().nextInt(partitions.size())).partition());
        consumer.assign(List.of(tp));
        consumer.seekToEnd(List.of(tp));
        consumer.position(tp); // resolves the end offset now, before the command can be answered
        return tp;
    }

    private Duration remaining(Instant deadline) {
        Duration left = Duration.between(clock.instant(), deadline);
        return left.isNegative() ? Duration.ZERO : left;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        consumer.close();
    }
}
