package dev.lockstep.client;

import dev.lockstep.protocol.ResourcePartition;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Publishes command records to the command topic, each saying where its reply goes.
 *
 * <p>A send runs on a thread of its own, one after the other in the order published (a
 * cancellation after its acquire): Kafka's {@code send} blocks while the broker's metadata cannot
 * be had (up to {@code max.block.ms}), and a caller on the client's timer thread (a renewal) must
 * not hold up the timer that says a lease's validity ended.
 */
final class CommandPublisher implements AutoCloseable {

    /** How long closing waits for what was published to reach the broker. */
    private static final Duration CLOSING = Duration.ofSeconds(5);

    private final Producer<byte[], byte[]> producer;
    private final LockClientSettings settings;
    private final AtomicInteger learnedPartitions = new AtomicInteger();
    private final ExecutorService sender = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lockstep-client-publisher");
        thread.setDaemon(true);
        return thread;
    });

    CommandPublisher(Producer<byte[], byte[]> producer, LockClientSettings settings) {
        this.producer = producer;
        this.settings = settings;
    }

    static CommandPublisher open(LockClientSettings settings) {
        // A command waits for nothing: sent at once (Kafka's default lingers 5 ms to fill batches).
        return new CommandPublisher(new KafkaProducer<>(settings.kafka().with(Map.of(
                ProducerConfig.LINGER_MS_CONFIG, 0), Map.of(
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, settings.requestTimeout().toMillis())),
                new ByteArraySerializer(), new ByteArraySerializer()), settings);
    }

    /**
     * Completes when the broker has the record, or fails with {@link LockClientException}; never
     * throws.
     */
    CompletableFuture<Void> publish(byte[] key, byte[] value, int replyPartition, OptionalInt partition) {
        CompletableFuture<Void> published = new CompletableFuture<>();
        RecordHeaders headers = new RecordHeaders();
        headers.add("kafka_replyTopic", settings.topics().replies().getBytes(StandardCharsets.UTF_8));
        headers.add("kafka_replyPartition", ByteBuffer.allocate(Integer.BYTES).putInt(replyPartition).array());
        try {
            sender.execute(() -> send(key, value, headers, partition, published));
        } catch (RejectedExecutionException e) {
            published.completeExceptionally(new LockClientException("the client is closed: nothing is published", e));
        }
        return published;
    }

    /**
     * A {@code moved} reply said the command topic routes by {@code partitions}: while the
     * producer's metadata knows fewer, this client partitions by that count itself, so its next
     * commands go where they are decided at once, not after a move of their own.
     */
    void learned(int partitions) {
        learnedPartitions.accumulateAndGet(partitions, Math::max);
    }

    /** On the sender thread: the partition named, or by the larger of the learned count and the metadata's; null: the producer's own. */
    private Integer partitionOf(byte[] key, OptionalInt partition) {
        if (partition.isPresent()) {
            return partition.getAsInt();
        }
        int learned = learnedPartitions.get();
        if (learned == 0 || key == null) {
            return null;
        }
        int known = producer.partitionsFor(settings.topics().commands()).size();
        return known >= learned ? null : ResourcePartition.of(key, learned);
    }

    private void send(byte[] key, byte[] value, RecordHeaders headers, OptionalInt partition,
            CompletableFuture<Void> published) {
        try {
            producer.send(new ProducerRecord<>(settings.topics().commands(), partitionOf(key, partition), key, value,
                    headers), (metadata, error) -> {
                if (error != null) {
                    published.completeExceptionally(failed(error));
                } else {
                    published.complete(null);
                }
            });
        } catch (KafkaException | IllegalStateException e) {
            // IllegalStateException: the producer was closed while this send waited its turn.
            published.completeExceptionally(failed(e));
        }
    }

    private LockClientException failed(Exception error) {
        return new LockClientException("publishing to " + settings.topics().commands() + " failed: "
                + error.getMessage(), error);
    }

    /** Sends what was published, waiting up to 5 s in all for the broker to have it. */
    @Override
    public void close() {
        long deadline = System.nanoTime() + CLOSING.toNanos();
        sender.shutdown();
        try {
            sender.awaitTermination(CLOSING.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    void closeNow() {
        sender.shutdownNow();
        producer.close(Duration.ZERO);
    }
}
