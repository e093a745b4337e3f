package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's mock consumer and producer in the broker's place, for the client's own tests: the
 * commands a client publishes are read back from the producer, and the replies the worker would
 * publish are handed to the consumer, as the test decides.
 */
final class MockBroker {

    static final TopicPartition REPLIES = new TopicPartition("lock.replies", 0);

    final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private long replyOffset;

    MockBroker() {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
    }

    /** A client of this broker, with the default settings but for the request timeout. */
    LockClient client(Duration requestTimeout) {
        LockClientSettings settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9"))
                .withRequestTimeout(requestTimeout);
        return LockClient.start(settings, new CommandPublisher(producer, settings), ReplyListener.listen(consumer, REPLIES));
    }

    /** The request ID of the {@code index}-th command published, once it was. */
    String sent(int index) {
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() > index);
        return requestId(producer.history().get(index));
    }

    /** Publishes the worker's reply {@code json}, keyed by its request ID. */
    void reply(String requestId, String json) {
        consumer.addRecord(new ConsumerRecord<>(REPLIES.topic(), REPLIES.partition(), replyOffset++,
                requestId.getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * An acquire's grant of {@code resource} to {@code owner} with {@code token}, in the worker's
     * words; {@code more} are further fields of the lease ({@code ,"value":"v"}) and then of the
     * reply after the lease ({@code ,"waited_ms":60000}), each with its leading comma.
     */
    static String acquired(String requestId, String resource, String owner, long token, String expiresAt,
            String leaseMore, String replyMore) {
        return "{\"request_id\":\"" + requestId + "\",\"type\":\"acquire\",\"resource\":\"" + resource
                + "\",\"outcome\":\"acquired\",\"acquired\":true,\"lock\":{\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"fencing_token\":" + token + ",\"acquired_at\":\"2026-12-07T10:00:00.000Z\","
                + "\"expires_at\":\"" + expiresAt + "\"" + leaseMore + "}" + replyMore + "}";
    }

    static String text(ProducerRecord<byte[], byte[]> record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    static String requestId(ProducerRecord<byte[], byte[]> record) {
        Matcher id = Pattern.compile("\"request_id\":\"([^\"]+)\"").matcher(text(record));
        assertThat(id.find()).as(text(record)).isTrue();
        return id.group(1);
    }
}
