package dev.lockstep.client;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Publishes command records to the command topic, each saying where its reply goes. */
final class CommandPublisher implements AutoCloseable {

    private final Producer<byte[], byte[]> producer;
    private final LockClientSettings settings;

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
        try {
            producer.send(new ProducerRecord<>(settings.topics().commands(), null, key, value, headers),
                    (metadata, error) -> {
                        if (error != null) {
                            published.completeExceptionally(failed(error));
                        } else {
                            published.complete(null);
                        }
                    });
        } catch (KafkaException e) {
            published.completeExceptionally(failed(e));
        }
        return published;
    }

    private LockClientException failed(Exception error) {
        return new LockClientException("publishing to " + settings.topics().commands() + " failed: "
                + error.getMessage(), error);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }

    void closeNow() {
        producer.close(Duration.ZERO);
    }
}
