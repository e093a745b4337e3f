package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A grant that came too late, acquired again, then given up on. Kafka's
 * mock consumer and producer stand in for the broker, as in {@link AcquireEdgesTest}.
 */
class LateGrantTest {

    private static final TopicPartition REPLIES = new TopicPartition("lock.replies", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private LockClient client;
    private long replyOffset;

    @BeforeEach
    void start() {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
        LockClientSettings settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9"))
                .withRequestTimeout(Duration.ofSeconds(30));
        client = LockClient.start(settings, new CommandPublisher(producer, settings),
                ReplyListener.listen(consumer, REPLIES));
    }

    @AfterEach
    void close() {
        client.close();
    }

    /**
     * client.md, "A caller that gives up leaves nothing behind" and "A grant after a wait is dated by
     * its wait": a grant whose reply came after its local validity is acquired again with a new
     * request ID, and "with no time left the acquire is cancelled (its lease released, not left to
     * block the lock)". The first acquire A1 was granted lease 7 (its publish was slow, so the lease
     * in the log runs well past its reply). The client sends A2 for the same owner; the worker
     * answers it by extending lease 7 (same token: the owner holds it). The caller now gives up
     * (cancels the future: exec's SIGTERM while it waits; or A2's reply is late too, or times out,
     * with the wait over): only A2 is cancelled, and the cancellation of an acquire that extended a
     * lease its owner already held is {@code not_found} ("that lease stays", protocol.md). Nothing
     * ends lease 7: it blocks the lock for its TTL, extended by A2, with nobody holding it.
     */
    @Test
    void givingUpAfterALateGrantWasAcquiredAgainReleasesTheLateGrantsLease() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        CompletableFuture<Optional<HeldLease>> attempt = client.tryAcquire("r", "o", ttl, Duration.ofSeconds(30));
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 1);
        String first = requestId(producer.history().get(0));
        Thread.sleep(ttl.toMillis()); // its reply comes after 0.9 x TTL: too late to act on
        reply(first, 7);
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 2);
        String second = requestId(producer.history().get(1));
        assertThat(second).as("acquired again with a new request ID").isNotEqualTo(first);

        attempt.cancel(false);

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(producer.history())
                .as("the attempt given up on is cancelled").anySatisfy(record -> assertThat(text(record))
                        .contains("\"type\":\"release\"", "\"cancels\":\"" + second + "\"")));
        assertThat(producer.history()).as("lease 7 (granted to %s, extended by %s) is released: a cancellation of %s "
                + "or a release of token 7", first, second, first).anySatisfy(record -> assertThat(text(record))
                .contains("\"type\":\"release\"")
                .containsAnyOf("\"cancels\":\"" + first + "\"", "\"fencing_token\":7"));
    }

    private void reply(String requestId, long token) {
        consumer.addRecord(new ConsumerRecord<>(REPLIES.topic(), REPLIES.partition(), replyOffset++,
                requestId.getBytes(StandardCharsets.UTF_8), ("{\"request_id\":\"" + requestId + "\",\"type\":\"acquire\","
                        + "\"resource\":\"r\",\"outcome\":\"acquired\",\"acquired\":true,\"lock\":{\"resource\":\"r\","
                        + "\"owner\":\"o\",\"fencing_token\":" + token + ",\"acquired_at\":\"2026-12-06T10:01:00.000Z\","
                        + "\"expires_at\":\"2026-12-06T10:01:01.000Z\"}}").getBytes(StandardCharsets.UTF_8)));
    }

    private static String text(ProducerRecord<byte[], byte[]> record) {
        return new String(record.value(), StandardCharsets.UTF_8);
    }

    private static String requestId(ProducerRecord<byte[], byte[]> record) {
        Matcher id = Pattern.compile("\"request_id\":\"([^\"]+)\"").matcher(text(record));
        assertThat(id.find()).as(text(record)).isTrue();
        return id.group(1);
    }
}
