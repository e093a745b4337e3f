package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Verdict;
import java.time.Duration;
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
}
