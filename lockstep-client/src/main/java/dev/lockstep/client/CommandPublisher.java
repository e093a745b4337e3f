package dev.lockstep.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
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
    CompletableFuture<Void> publish(byte[] key, byte[] value, int replyPartition) {
        CompletableFuture<Void> published = new CompletableFuture<>();
        RecordHeaders headers = new RecordHeaders();
        headers.add("kafka_replyTopic", settings.topics().replies().getBytes(StandardCharsets.UTF_8));
        headers.add("kafka_replyPartition", ByteBuffer.allocate(Integer.BYTES).putInt(replyPartition).array());
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(settings.topics().commands(), null, key, value,
                headers);
        try {
            sender.execute(() -> send(record, published));
        } catch (RejectedExecutionException e) {
            published.completeExceptionally(new LockClientException("the client is closed: nothing is published", e));
        }
        return published;
    }

    private void send(ProducerRecord<byte[], byte[]> record, CompletableFuture<Void> published) {
        try {
            producer.send(record, (metadata, error) -> {
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
