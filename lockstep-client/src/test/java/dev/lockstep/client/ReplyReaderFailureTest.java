package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.core.Verdict;
import dev.lockstep.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * A client whose reply reader fails (its consumer cannot go on) fails visibly: every waiting
 * request fails at once rather than at its timeout, an acquire given up on is cancelled, every
 * later request fails without being published, and {@link LockClient#isOpen()} and
 * {@link LockClient#failure()} say so. Kafka's mock consumer and producer stand in for the broker.
 */
class ReplyReaderFailureTest {

    private static final TopicPartition REPLIES = new TopicPartition("lock.replies", 0);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private final CountDownLatch broken = new CountDownLatch(1);
    private LockClient client;

    @BeforeEach
    void start() {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
        // The reader's first poll lasts until the test breaks the consumer (a mock's poll never waits).
        consumer.schedulePollTask(() -> {
            try {
                broken.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            consumer.setPollException(new KafkaException("Received exception when fetching the next record from "
                    + REPLIES + ". If needed, please seek past the record to continue consumption."));
        });
        LockClientSettings settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9"))
                .withRequestTimeout(REQUEST_TIMEOUT);
        client = LockClient.start(settings, new CommandPublisher(producer, settings),
                ReplyListener.listen(consumer, REPLIES));
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
                .withMessageContaining("reply reader on " + REPLIES + " failed");
        assertThat(client.isOpen()).isFalse();
        assertThat(client.failure()).get().extracting(Throwable::getCause).isInstanceOf(KafkaException.class);
        assertThat(queued).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockClientException.class);
        String acquireId = CommandsSent.requestId(producer.history().get(1));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(producer.history()).hasSize(3));
        assertThat(CommandsSent.text(producer.history().get(2))).as("the acquire given up on is cancelled")
                .contains("\"type\":\"release\"", "\"cancels\":\"" + acquireId + "\"");

        CompletableFuture<Verdict> later = client.acquire("r", "o", Duration.ofSeconds(10));
        assertThat(later).as("fails at once").isCompletedExceptionally();
        assertThat(producer.history()).as("and publishes nothing: a grant nobody could read").hasSize(3);
    }

    /** The commands the client published, as the worker reads them. */
    private static final class CommandsSent {

        static String text(ProducerRecord<byte[], byte[]> record) {
            return new String(record.value(), StandardCharsets.UTF_8);
        }

        static String requestId(ProducerRecord<byte[], byte[]> record) {
            Matcher id = Pattern.compile("\"request_id\":\"([^\"]+)\"").matcher(text(record));
            assertThat(id.find()).as(text(record)).isTrue();
            return id.group(1);
        }
    }
}
