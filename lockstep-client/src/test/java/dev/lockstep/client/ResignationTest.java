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
 * A resigning leader's listener hears its term end, whatever came first (a validity that ran out
 * unnoticed) and whatever follows (the client closing). Kafka's mock consumer and producer stand
 * in for the broker.
 */
class ResignationTest {

    private static final TopicPartition REPLIES = new TopicPartition("lock.replies", 0);

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
            new ByteArraySerializer());
    private LockClient client;

    @AfterEach
    void close() {
        client.close();
    }

    /**
     * LeaderElection.Listener "hears when this candidate becomes leader, and when it stops being
     * leader" (cli.md: elect "prints a line (elected, or deposed with a reason) at each change").
     * The leader's local validity passes while the client's timer thread is held up (a pause of the
     * process, or a listener call: listeners now run on that thread), and the candidate resigns
     * before the timer ran: {@code resign()} sets {@code held = null}, then asks
     * {@code resigned.isLost()}, which now loses the lease there; {@code deposed} finds
     * {@code held != lease} and tells nothing, and {@code resign} skips RESIGNED because the lease
     * is lost. Before isLost() read the validity, the listener heard "lost RESIGNED"; now it hears
     * nothing: gained, and never lost.
     */
    @Test
    void aLeaderWhoseValidityPassedUnnoticedAndThenResignsIsToldItsTermEnded() throws Exception {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
        LockClientSettings settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9"));
        client = LockClient.start(settings, new CommandPublisher(producer, settings), ReplyListener.listen(consumer, REPLIES));
        List<String> told = new CopyOnWriteArrayList<>();
        LeaderElection election = LeaderElection.of(client, "g", "host-a", Duration.ofSeconds(1), Optional.empty(),
                new LeaderElection.Listener() {
                    @Override
                    public void gained(LeaderElection.Leadership leadership) {
                        told.add("gained " + leadership.term());
                    }

                    @Override
                    public void lost(LeaderElection.Leadership leadership, LeaseLost.Reason why) {
                        told.add("lost " + leadership.term() + " " + why);
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
                        + "\"expires_at\":\"2026-12-07T10:00:01.000Z\",\"value\":\"host-a\"}}").getBytes(StandardCharsets.UTF_8)));
        await().atMost(Duration.ofSeconds(5)).until(() -> told.equals(List.of("gained 7")));

        // The timer thread is held up past the lease's local validity (0.9 s), as a pause would hold it.
        CountDownLatch resume = new CountDownLatch(1);
        client.scheduler().execute(() -> {
            try {
                resume.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        Thread.sleep(1_200);
        election.resign();
        resume.countDown();

        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(told)
                .as("the listener hears that term 7 ended, resigned or expired").hasSize(2)
                .last().asString().startsWith("lost 7 "));
    }

    /**
     * cli.md: {@code elect} without a command "prints a line (elected, or deposed with a reason) at
     * each change ... and resigns on SIGTERM" (ElectIT checks the last line says "resigned"). Its
     * SIGTERM handler calls {@code resign()} and lets main return, which closes the election (a
     * no-op by then) and the client: {@code LockClient.close()} shuts the timer thread down at once
     * ({@code shutdownNow}). {@code tell} now queues the listener's call on that thread, so a call
     * not yet run when the client closes is dropped: here the timer thread is busy (a renewal, a
     * listener call, a loaded machine) when the candidate resigns and the client closes. Before
     * the listener calls were chained on the timer, resign() told RESIGNED on its own thread.
     */
    @Test
    void aResignationRightBeforeTheClientClosesIsStillTold() throws Exception {
        List<String> told = new CopyOnWriteArrayList<>();
        LeaderElection election = elected(told);

        CountDownLatch busy = new CountDownLatch(1);
        client.scheduler().execute(() -> {
            busy.countDown();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();
        election.resign();
        client.close();

        Thread.sleep(500);
        assertThat(told).as("resigned, then closed: the listener hears it").containsExactly("gained 7", "lost 7 RESIGNED");
    }

    /** A client whose election {@code g} (TTL 30 s) is won in term 7; the listener's calls go to {@code told}. */
    private LeaderElection elected(List<String> told) {
        consumer.assign(List.of(REPLIES));
        consumer.updateBeginningOffsets(Map.of(REPLIES, 0L));
        LockClientSettings settings = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9"));
        client = LockClient.start(settings, new CommandPublisher(producer, settings), ReplyListener.listen(consumer, REPLIES));
        LeaderElection election = LeaderElection.of(client, "g", "host-a", Duration.ofSeconds(30), Optional.empty(),
                new LeaderElection.Listener() {
                    @Override
                    public void gained(LeaderElection.Leadership leadership) {
                        told.add("gained " + leadership.term());
                    }

                    @Override
                    public void lost(LeaderElection.Leadership leadership, LeaseLost.Reason why) {
                        told.add("lost " + leadership.term() + " " + why);
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
        await().atMost(Duration.ofSeconds(5)).until(() -> told.equals(List.of("gained 7")));
        return election;
    }
}
