package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.core.Verdict;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/**
 * Closing a client ends what it was waiting for: a request in flight fails at once with the client
 * closed rather than never completing (the timer that would have timed it out is gone), an acquire
 * in flight is cancelled before the client's producer closes (a lease granted unseen would block
 * its resource for its TTL), and a request after close fails without being published, never
 * throwing. Kafka's mock consumer and producer stand in for the broker.
 */
class ClosedClientTest {

    private final MockBroker broker = new MockBroker();

    @Test
    void closingFailsWhatWaitsCancelsAcquiresInFlightAndRefusesLaterRequests() {
        LockClient client = broker.client(Duration.ofSeconds(30));
        CompletableFuture<Verdict> waiting = client.status("r");
        CompletableFuture<Verdict> queued = client.acquire("r", "o", Duration.ofSeconds(10), Duration.ofMinutes(5));
        String acquireId = broker.sent(1);

        client.close();

        assertThat(waiting).as("no reply will be read: the request fails now, not never")
                .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class).withMessageContaining("closed");
        assertThat(queued).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class);
        assertThat(broker.producer.history()).as("the acquire in flight was cancelled before the producer closed")
                .hasSize(3);
        assertThat(MockBroker.text(broker.producer.history().get(2)))
                .contains("\"type\":\"release\"", "\"cancels\":\"" + acquireId + "\"");
        assertThat(client.isOpen()).isFalse();

        CompletableFuture<Verdict> later = client.acquire("r", "o", Duration.ofSeconds(10));
        assertThat(later).as("fails at once, without throwing").isCompletedExceptionally();
        assertThat(broker.producer.history()).as("and publishes nothing").hasSize(3);
    }

    @Test
    void closingEndsARetryWaitingOutItsBackoffAndACampaign() {
        LockClient client = broker.client(Duration.ofSeconds(30));
        CompletableFuture<Optional<HeldLease>> trying = client.tryAcquire("r", "o", Duration.ofSeconds(10),
                Duration.ofMinutes(1));
        // A full queue, again and again: the attempts back off until the next waits a second on the client's timer.
        int attempts = 7;
        for (int sent = 0; sent < attempts; sent++) {
            String refused = broker.sent(sent);
            broker.reply(refused, "{\"request_id\":\"" + refused + "\",\"type\":\"acquire\",\"resource\":\"r\","
                    + "\"outcome\":\"not_acquired\",\"acquired\":false,\"retry_after_ms\":60000}");
        }
        LeaderElection election = LeaderElection.of(client, "g", "host-a", Duration.ofSeconds(10), Optional.empty(),
                new LeaderElection.Listener() {
                    @Override
                    public void gained(LeaderElection.Leadership leadership) {
                    }

                    @Override
                    public void lost(LeaderElection.Leadership leadership, LeaseLost.Reason why) {
                    }
                });
        CompletableFuture<LeaderElection.Leadership> campaign = election.campaign();
        broker.sent(attempts);
        await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(2))
                .until(() -> client.waiting() == 1); // the last refusal was read: only the campaign's acquire waits
        assertThat(broker.producer.history()).as("no attempt since").hasSize(attempts + 1);

        client.close();

        assertThat(trying).as("the retry the timer dropped ends the attempts").failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(LockClientException.class);
        assertThat(campaign).as("a campaign ends with its client").failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(LockClientException.class);
        assertThat(election.campaign()).as("and a campaign after close at once").failsWithin(Duration.ofSeconds(5))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(LockClientException.class);
    }

    @Test
    void aLossListenerMayCloseTheClientOnTheTimersThread() {
        LockClient client = broker.client(Duration.ofSeconds(30));
        CompletableFuture<Optional<HeldLease>> trying = client.tryAcquire("r", "o", Duration.ofSeconds(1),
                Duration.ZERO);
        String acquire = broker.sent(0);
        broker.reply(acquire, MockBroker.acquired(acquire, "r", "o", 3, "2026-12-07T10:00:01.000Z", "", ""));
        HeldLease held = trying.join().orElseThrow();
        CompletableFuture<Verdict> inFlight = client.acquire("other", "o", Duration.ofSeconds(10),
                Duration.ofMinutes(5));
        String inFlightId = broker.sent(1);
        CompletableFuture<Throwable> closing = new CompletableFuture<>();
        // Unanswered renewals: the lease is lost at its local end, told on the client's timer thread.
        held.lost().thenRun(() -> {
            try {
                client.close();
                closing.complete(Thread.interrupted() ? new InterruptedException("left interrupted") : null);
            } catch (RuntimeException e) {
                closing.complete(e);
            }
        });

        assertThat(closing).succeedsWithin(Duration.ofSeconds(5)).as("close() ends normally, the thread not "
                + "interrupted").isNull();
        assertThat(inFlight).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class);
        assertThat(broker.producer.history()).as("the acquire in flight was cancelled")
                .anySatisfy(sent -> assertThat(MockBroker.text(sent)).contains("\"cancels\":\"" + inFlightId + "\""));
    }
}
