package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.kafka.KafkaSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The listener hears of an election's changes one call at a time, in the order they happened:
 * a resignation while the listener is still being told of the term it ends comes after that call,
 * never beside it. Kafka's mock consumer and producer stand in for the broker.
 */
class LeaderElectionOrderTest {

    private static final TopicPartition REPLIES = new TopicPartition("lock.replies", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private LockClient client;

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aResignationIsToldAfterTheTermItEndsNotBesideIt() throws Exception {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
        LockClientSettings settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9"));
        client = LockClient.start(settings, new CommandPublisher(producer, settings), ReplyListener.listen(consumer, REPLIES));
        List<String> told = new CopyOnWriteArrayList<>();
        AtomicBoolean telling = new AtomicBoolean();
        CountDownLatch gainedStarted = new CountDownLatch(1);
        CountDownLatch letGainedEnd = new CountDownLatch(1);
        LeaderElection election = LeaderElection.of(client, "g", "host-a", Duration.ofSeconds(30), Optional.empty(),
                new LeaderElection.Listener() {
                    @Override
                    public void gained(LeaderElection.Leadership leadership) {
                        telling.set(true);
                        gainedStarted.countDown();
                        try {
                            letGainedEnd.await(5, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        told.add("gained " + leadership.term());
                        telling.set(false);
                    }

                    @Override
                    public void lost(LeaderElection.Leadership leadership, LeaseLost.Reason why) {
                        told.add((telling.get() ? "beside gained: " : "") + "lost " + leadership.term() + " " + why);
                    }
                });
        election.campaign();
        await().atMost(Duration.ofSeconds(5)).until(() -> !producer.history().isEmpty());
        String acquire = new String(producer.history().get(0).value(), StandardCharsets.UTF_8);
        Matcher id = Pattern.compile("\"request_id\":\"([^\"]+)\"").matcher(acquire);
        assertThat(id.find()).isTrue();
        consumer.addRecord(new ConsumerRecord<>(REPLIES.topic(), REPLIES.partition(), 0L,
                id.group(1).getBytes(StandardCharsets.UTF_8), ("{\"request_id\":\"" + id.group(1) + "\",\"type\":\"acquire\","
                        + "\"resource\":\"g\",\"outcome\":\"acquired\",\"acquired\":true,\"lock\":{\"resource\":\"g\","
                        + "\"owner\":\"host-a\",\"fencing_token\":7,\"acquired_at\":\"2026-12-07T10:00:00.000Z\","
                        + "\"expires_at\":\"2026-12-07T10:00:30.000Z\",\"value\":\"host-a\"}}").getBytes(StandardCharsets.UTF_8)));
        assertThat(gainedStarted.await(5, TimeUnit.SECONDS)).as("the listener is told of term 7").isTrue();

        election.resign();
        letGainedEnd.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 2);
        assertThat(told).containsExactly("gained 7", "lost 7 RESIGNED");
    }
}
