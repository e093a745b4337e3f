package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.core.Verdict;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.KafkaException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client whose reply reader fails (its consumer cannot go on) fails visibly: every waiting
 * request fails at once rather than at its timeout, an acquire given up on is cancelled, every
 * later request fails without being published, and {@link LockClient#isOpen()} and
 * {@link LockClient#failure()} say so. Kafka's mock consumer and producer stand in for the broker.
 */
class ReplyReaderFailureTest {

    private final MockBroker broker = new MockBroker();
    private final CountDownLatch broken = new CountDownLatch(1);
    private LockClient client;

    @BeforeEach
    void start() {
        // The reader's first poll lasts until the test breaks the consumer (a mock's poll never waits).
        broker.consumer.schedulePollTask(() -> {
            try {
                broken.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            broker.consumer.setPollException(new KafkaException("Received exception when fetching the next record from "
                    + MockBroker.REPLIES + ". If needed, please seek past the record to continue consumption."));
        });
        client = broker.client(Duration.ofSeconds(30));
    }

    @AfterEach
    void close() {
        broken.countDown();
        client.close();
    }

    @Test
    void aReplyReaderThatFailsFailsEveryRequestAndTheClientSaysSo() {
        CompletableFuture<Verdict> waiting = client.status("r");
        CompletableFuture<Verdict> queued = client.acquire("r", "o", Duration.ofSeconds(10), Duration.ofMinutes(5));
        assertThat(client.isOpen()).isTrue();
        assertThat(client.failure()).isEmpty();

        broken.countDown();

        assertThat(waiting).as("no reply can come: the request fails now, not at its timeout")
                .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class)
                .withMessageContaining("reply reader on " + MockBroker.REPLIES + " failed");
        assertThat(client.isOpen()).isFalse();
        assertThat(client.failure()).get().extracting(Throwable::getCause).isInstanceOf(KafkaException.class);
        assertThat(queued).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class);
        String acquireId = broker.sent(1);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(broker.producer.history()).hasSize(3));
        assertThat(MockBroker.text(broker.producer.history().get(2))).as("the acquire given up on is cancelled")
                .contains("\"type\":\"release\"", "\"cancels\":\"" + acquireId + "\"");

        CompletableFuture<Verdict> later = client.acquire("r", "o", Duration.ofSeconds(10));
        assertThat(later).as("fails at once").isCompletedExceptionally();
        assertThat(broker.producer.history()).as("and publishes nothing: a grant nobody could read").hasSize(3);
    }
}
