package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code tryAcquire} where its features meet: the reply reader failing, a grant's dating after a
 * wait, a grant that came too late to act on, a caller that gives up. {@link MockBroker} stands in
 * for the broker.
 */
class AcquireEdgesTest {

    private final MockBroker broker = new MockBroker();
    private final LockClient client = broker.client(Duration.ofSeconds(30));

    @AfterEach
    void close() {
        client.close();
    }

    /** When the reader fails, an acquire that waits in the queue is cancelled, not left to be granted unseen. */
    @Test
    void aWaitingTryAcquireIsCancelledWhenTheReplyReaderFails() {
        CompletableFuture<Optional<HeldLease>> waiting = client.tryAcquire("r", "o", Duration.ofSeconds(10),
                Duration.ofMinutes(1));
        String acquire = broker.sent(0);

        broker.consumer.setPollException(new KafkaException("the reply partition cannot be read"));

        assertThat(waiting).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class);
        assertCancelled(acquire);
    }

    /**
     * The grant's reply came, so the grant was made before its receipt, whatever {@code waited_ms}
     * says (a log clock that ran fast over the wait): the lease is dated no later than the reply.
     */
    @Test
    void aGrantAfterAWaitIsNeverDatedAfterItsReplyCame() throws Exception {
        Duration ttl = Duration.ofSeconds(10);
        CompletableFuture<Optional<HeldLease>> waiting = client.tryAcquire("r", "o", ttl, Duration.ofMinutes(2));
        String acquire = broker.sent(0);

        // The log says it waited a minute; here, the reply comes at once.
        broker.reply(acquire, MockBroker.acquired(acquire, "r", "o", 7, "2026-12-07T10:01:10.000Z", "",
                ",\"waited_ms\":60000"));
        HeldLease held = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
        MonotonicInstant received = MonotonicClock.system().now();
        try {
            Duration window = HeldLease.validFor(ttl, client.settings());
            assertThat(held.validUntil().isBefore(received.plus(window).plus(Duration.ofMillis(1))))
                    .as("valid until %s ms after the reply came; the lease's own window is %s ms",
                            received.until(held.validUntil()).toMillis(), window.toMillis())
                    .isTrue();
        } finally {
            held.closeAsync();
        }
    }

    /** A grant that came too late with no wait left is not handed over, and is cancelled, not left blocking the lock. */
    @Test
    void aGrantThatCameTooLateToActOnIsCancelledNotLeftBlockingTheLock() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        CompletableFuture<Optional<HeldLease>> attempt = client.tryAcquire("r", "o", ttl, Duration.ZERO);
        String acquire = broker.sent(0);
        Thread.sleep(ttl.toMillis()); // the reply comes after 0.9 x TTL
        broker.reply(acquire, MockBroker.acquired(acquire, "r", "o", 7, "2026-12-07T10:00:01.000Z", "", ""));

        assertThat(attempt.get(5, TimeUnit.SECONDS).filter(held -> !held.isLost()))
                .as("past its local validity: not to be acted on").isEmpty();
        assertCancelled(acquire);
    }

    /**
     * A grant that came too late is acquired again; the second attempt extends the same lease (same
     * owner, same token). A caller that gives up then cancels both: cancelling only the second
     * releases nothing ("that lease stays"), and the lease would block the lock for its TTL.
     */
    @Test
    void givingUpAfterALateGrantWasAcquiredAgainCancelsTheLateGrantToo() throws Exception {
        Duration ttl = Duration.ofSeconds(1);
        CompletableFuture<Optional<HeldLease>> attempt = client.tryAcquire("r", "o", ttl, Duration.ofSeconds(30));
        String first = broker.sent(0);
        Thread.sleep(ttl.toMillis()); // its reply comes after 0.9 x TTL: too late to act on
        broker.reply(first, MockBroker.acquired(first, "r", "o", 7, "2026-12-07T10:00:01.000Z", "", ""));
        String second = broker.sent(1);
        assertThat(second).as("acquired again with a new request ID").isNotEqualTo(first);

        attempt.cancel(false);

        assertCancelled(second);
        assertCancelled(first);
    }

    private void assertCancelled(String acquire) {
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(broker.producer.history())
                .as("the acquire %s given up on is cancelled", acquire).anySatisfy(record -> assertThat(
                        MockBroker.text(record)).contains("\"type\":\"release\"", "\"cancels\":\"" + acquire + "\"")));
    }
}
