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
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tryAcquire} where its features meet the reply reader's failure, a grant's dating and a
 * grant that came too late. Kafka's mock consumer and producer stand in for the broker, as in
 * {@link ReplyReaderFailureTest}.
 */
class AcquireEdgesTest {

    private static final TopicPartition REPLIES = new TopicPartition("lock.replies", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private LockClientSettings settings;
    private LockClient client;

    @BeforeEach
    void start() {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
        settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9")).withRequestTimeout(Duration.ofSeconds(30));
        client = LockClient.start(settings, new CommandPublisher(producer, settings),
                ReplyListener.listen(consumer, REPLIES));
    }

    @AfterEach
    void close() {
        client.close();
    }

    /**
     * client.md, "Where replies go": when the reader fails, "every waiting request fails at once ...,
     * an acquire among them is cancelled". {@code tryAcquire}'s acquire waits in the queue (it was
     * published, so the worker may grant it), but {@code AcquireAttempts} sends it through
     * {@code LockClient.request}, which never cancels, and completes exceptionally on the
     * {@code LockClientException}: the waiter stays queued, and its grant blocks the lock for its TTL
     * with nobody renewing it.
     */
    @Test
    void aWaitingTryAcquireIsCancelledWhenTheReplyReaderFails() {
        CompletableFuture<Optional<HeldLease>> waiting = client.tryAcquire("r", "o", Duration.ofSeconds(10),
                Duration.ofMinutes(1));
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 1);
        String acquireId = requestId(producer.history().get(0));

        consumer.setPollException(new KafkaException("the reply partition cannot be read"));

        assertThat(waiting).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(producer.history())
                .as("the acquire given up on is cancelled").anySatisfy(record -> assertThat(text(record))
                        .contains("\"type\":\"release\"", "\"cancels\":\"" + acquireId + "\"")));
    }

    /**
     * The grant's reply came, so the grant was made before its receipt, whatever {@code waited_ms}
     * says. Python and Node date a lease {@code min(first send + waited_ms, receipt)} ("never later
     * than the reply's receipt: a log clock running fast cannot date it later", client.md); the Java
     * client takes first send + waited_ms alone. A log clock that ran faster than this one over the
     * wait (a leader change to a broker whose clock is ahead, an NTP step of the broker's, or a rate
     * difference within the documented 10 % over a wait of minutes) dates the lease after the reply
     * came, and its local validity (and exec's guard's SIGKILL) past the lease's end in the log.
     */
    @Test
    void aGrantAfterAWaitIsNeverDatedAfterItsReplyCame() throws Exception {
        Duration ttl = Duration.ofSeconds(10);
        CompletableFuture<Optional<HeldLease>> waiting = client.tryAcquire("r", "o", ttl, Duration.ofMinutes(2));
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 1);
        String acquireId = requestId(producer.history().get(0));

        // The log says it waited a minute; here, the reply comes at once.
        consumer.addRecord(new ConsumerRecord<>(REPLIES.topic(), REPLIES.partition(), 0L,
                acquireId.getBytes(StandardCharsets.UTF_8), ("{\"request_id\":\"" + acquireId + "\",\"type\":\"acquire\","
                        + "\"resource\":\"r\",\"outcome\":\"acquired\",\"acquired\":true,\"lock\":{\"resource\":\"r\","
                        + "\"owner\":\"o\",\"fencing_token\":7,\"acquired_at\":\"2026-12-06T10:01:00.000Z\","
                        + "\"expires_at\":\"2026-12-06T10:01:10.000Z\"},\"waited_ms\":60000}")
                        .getBytes(StandardCharsets.UTF_8)));
        HeldLease held = waiting.get(5, java.util.concurrent.TimeUnit.SECONDS).orElseThrow();
        MonotonicInstant received = MonotonicClock.system().now();
        try {
            Duration window = Duration.ofNanos((long) (ttl.toNanos() * (1 - settings.safetyMarginFraction())));
            assertThat(held.validUntil().isBefore(received.plus(window).plus(Duration.ofMillis(1))))
                    .as("valid until %s ms after the reply came; the lease's own window is %s ms",
                            received.until(held.validUntil()).toMillis(), window.toMillis())
                    .isTrue();
        } finally {
            held.closeAsync();
        }
    }

    /**
     * client.md, "A caller that gives up leaves nothing behind". An acquire without a wait whose
     * reply comes after its local validity (a first publish that took longer than 0.9 x TTL: a
     * fresh client, a producer retrying through a leader election) was granted a lease that is live
     * in the log right now. The client does not hand it over (rightly), but with no wait left it
     * answers "not acquired" and neither cancels that acquire nor releases its lease: the lock stays
     * blocked for the lease's TTL by a holder that was told it holds nothing.
     */
    @Test
    void aGrantThatCameTooLateToActOnIsCancelledNotLeftBlockingTheLock() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        CompletableFuture<Optional<HeldLease>> attempt = client.tryAcquire("r", "o", ttl, Duration.ZERO);
        await().atMost(Duration.ofSeconds(5)).until(() -> producer.history().size() == 1);
        String acquireId = requestId(producer.history().get(0));
        Thread.sleep(ttl.toMillis()); // the reply comes after 0.9 x TTL
        consumer.addRecord(new ConsumerRecord<>(REPLIES.topic(), REPLIES.partition(), 0L,
                acquireId.getBytes(StandardCharsets.UTF_8), ("{\"request_id\":\"" + acquireId + "\",\"type\":\"acquire\","
                        + "\"resource\":\"r\",\"outcome\":\"acquired\",\"acquired\":true,\"lock\":{\"resource\":\"r\","
                        + "\"owner\":\"o\",\"fencing_token\":7,\"acquired_at\":\"2026-12-06T10:01:00.000Z\","
                        + "\"expires_at\":\"2026-12-06T10:01:01.000Z\"}}").getBytes(StandardCharsets.UTF_8)));
        Optional<HeldLease> got = attempt.get(5, java.util.concurrent.TimeUnit.SECONDS);

        assertThat(got.filter(held -> !held.isLost())).as("past its local validity: not to be acted on").isEmpty();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(producer.history())
                .as("the lease the caller cannot act on is cancelled or released")
                .anySatisfy(record -> assertThat(text(record)).contains("\"type\":\"release\"")
                        .containsAnyOf("\"cancels\":\"" + acquireId + "\"", "\"fencing_token\":7")));
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
