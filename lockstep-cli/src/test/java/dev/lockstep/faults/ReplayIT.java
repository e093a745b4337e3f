package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static dev.lockstep.testkit.Commands.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Divergence;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.testkit.TopicCollector;
import dev.lockstep.worker.WorkerSettings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code lockstep replay} on a real run: everything reproduced; then each planted divergence
 * (a forged reply, an edited lease row, an altered event, a missing event, a reply never
 * published) is found and named.
 */
class ReplayIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static ReplayReport replay(TopicNames topics) {
        return new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
    }

    private static List<Divergence> of(ReplayReport report, Divergence.Kind kind) {
        return report.divergences().stream().filter(d -> d.kind() == kind).toList();
    }

    @Test
    void aRunIsReproducedAndEachPlantedDivergenceIsNamed() throws Exception {
        TopicNames topics = env.topics().suffixed("-replay");
        LockstepExtension.createTopics(env.kafka(), topics);
        String silent = topics.replies() + ".silent";
        String eventsCopy = topics.events() + ".copy";
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(silent, 1, (short) 1),
                    new NewTopic(eventsCopy, LockstepExtension.PARTITIONS, (short) 1))).all().get();
        }
        String unanswered = newId();
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("replay"));
                Workload load = Workload.start(env.kafka(), topics.commands(), 42, 4, 4, Duration.ofMillis(10));
                Wire wire = new Wire(env.kafka(), topics);
                TopicCollector silentReplies = TopicCollector.start(env.kafka(), silent)) {
            load.awaitPublished(600);
            Histories.await(env.kafka(), topics, load.finish(), Duration.ofSeconds(60));
            wire.send(acquire(unanswered, "elsewhere", "o", 30).put("reply_to", silent));
            silentReplies.await(r -> true, 1);
        }

        ReplayReport clean = replay(topics);
        assertThat(clean.divergences()).isEmpty();
        assertThat(clean.unverifiable()).isEmpty();
        assertThat(clean.exitCode()).isEqualTo(ReplayReport.REPRODUCED);
        assertThat(clean.records()).isGreaterThan(600);
        assertThat(clean.repliesCompared()).isGreaterThan(600);
        assertThat(clean.eventsCompared()).isGreaterThan(50);
        assertThat(clean.partitionsCompared()).isEqualTo(LockstepExtension.PARTITIONS);

        ConsumerRecord<byte[], byte[]> reply;
        List<ConsumerRecord<byte[], byte[]>> events;
        try (TopicCollector replies = TopicCollector.start(env.kafka(), topics.replies());
                TopicCollector published = TopicCollector.start(env.kafka(), topics.events())) {
            reply = replies.await(r -> new String(r.value(), StandardCharsets.UTF_8)
                    .contains("\"outcome\":\"acquired\""), 1).get(0);
            events = published.await(r -> true, clean.eventsCompared());
        }
        String forgedId = new String(reply.key(), StandardCharsets.UTF_8);
        ConsumerRecord<byte[], byte[]> event = events.get(0);
        LeaseEvent altered = EventCodec.decode(event.value());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(env.kafka().with(Map.of()),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            for (ConsumerRecord<byte[], byte[]> copied : events) {
                if (copied.offset() != event.offset() || copied.partition() != event.partition()) {
                    producer.send(new ProducerRecord<>(eventsCopy, copied.partition(), copied.key(), copied.value()));
                }
            }
            producer.send(new ProducerRecord<>(topics.replies(), reply.key(), new String(reply.value(),
                    StandardCharsets.UTF_8).replace("\"owner\":\"", "\"owner\":\"forged-").getBytes(StandardCharsets.UTF_8)));
            producer.send(new ProducerRecord<>(topics.events(), event.partition(), event.key(), EventCodec.encode(
                    new LeaseEvent(altered.eventId(), altered.kind(), altered.resource(), "mallory",
                            altered.fencingToken(), altered.at(), altered.expiresAt(), altered.source(),
                            altered.requestId()))));
        }
        String edited;
        try (Connection c = env.jdbc(); PreparedStatement update = c.prepareStatement(
                "UPDATE distributed_locks SET owner = 'mallory' WHERE resource = (SELECT resource FROM distributed_locks "
                        + "WHERE topic = ? ORDER BY resource LIMIT 1) RETURNING resource")) {
            update.setString(1, topics.commands());
            try (ResultSet rs = update.executeQuery()) {
                assertThat(rs.next()).isTrue();
                edited = rs.getString(1);
            }
        }
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.deleteTopics(List.of(silent)).all().get();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> !admin.listTopics().names().get().contains(silent));
            admin.createTopics(List.of(new NewTopic(silent, 1, (short) 1))).all().get();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> admin.listTopics().names().get().contains(silent));
        }

        ReplayReport planted = replay(topics);
        assertThat(planted.exitCode()).isEqualTo(ReplayReport.DIVERGED);
        assertThat(of(planted, Divergence.Kind.REPLY_DIFFERS)).singleElement().satisfies(d -> {
            assertThat(d.requestId()).contains(forgedId);
            assertThat(d.found()).contains("forged-");
            assertThat(d.source()).startsWith(topics.commands() + "-");
        });
        assertThat(of(planted, Divergence.Kind.EVENT_DIFFERS)).singleElement().satisfies(d -> {
            assertThat(d.source()).isEqualTo(altered.source());
            assertThat(d.found()).contains("mallory");
        });
        assertThat(of(planted, Divergence.Kind.LEASE_DIFFERS)).singleElement()
                .satisfies(d -> assertThat(d.found()).contains(edited + " held by mallory"));
        assertThat(of(planted, Divergence.Kind.REPLY_MISSING)).singleElement()
                .satisfies(d -> assertThat(d.requestId()).contains(unanswered));
        assertThat(planted.divergences()).hasSize(4);

        TopicNames withCopy = new TopicNames(topics.commands(), topics.replies(), topics.deadLetters(), eventsCopy);
        ReplayReport missing = replay(withCopy);
        assertThat(of(missing, Divergence.Kind.EVENT_MISSING)).singleElement().satisfies(d -> {
            assertThat(d.source()).isEqualTo(altered.source());
            assertThat(d.expected()).isEqualTo(new String(event.value(), StandardCharsets.UTF_8));
        });
        assertThat(Set.copyOf(missing.divergences().stream().map(Divergence::kind).toList()))
                .containsOnly(Divergence.Kind.EVENT_MISSING, Divergence.Kind.REPLY_DIFFERS, Divergence.Kind.LEASE_DIFFERS,
                        Divergence.Kind.REPLY_MISSING);
    }

    /**
     * A worker applies on while a replay runs: a client's command, the grant it hands a waiter, and a
     * tick showing that lease's end, all appended after the replay read the command log. What the
     * worker publishes for them is no divergence: the replay judges what the records it replayed
     * make (found as an {@code expired} event "forged" by a tick, ClientBeliefsIT).
     */
    @Test
    void whatAWorkerPublishesForRecordsAppendedWhileTheReplayRunsIsNotForged() throws Exception {
        TopicNames topics = env.topics().suffixed("-live");
        LockstepExtension.createTopics(env.kafka(), topics);
        String waiter = newId();
        AtomicBoolean appended = new AtomicBoolean();
        ReplayReport report;
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("replay-live"));
                Wire wire = new Wire(env.kafka(), topics);
                TopicCollector events = TopicCollector.start(env.kafka(), topics.events())) {
            assertThat(wire.call(acquire(newId(), "live", "holder", 60)).path("outcome").asText()).isEqualTo("acquired");
            wire.send(acquire(waiter, "live", "waiter", 1).put("wait_ms", 60_000));
            // Answered after the waiter's record, on the same partition: the waiter has joined the queue.
            wire.call(status(newId(), "live"));
            report = new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL, (read, total) -> {
                // The command log is read; what is published is read next.
                if (read == total && appended.compareAndSet(false, true)) {
                    wire.call(release(newId(), "live", "holder"));
                    assertThat(Commands.parse(wire.await(waiter, 1).get(0).value()).path("outcome").asText())
                            .isEqualTo("acquired");
                    // The waiter's lease of 1 s ends unshown: the worker's tick shows it.
                    events.await(r -> new String(r.value(), StandardCharsets.UTF_8).contains("\"event\":\"expired\""), 1);
                }
            });
        }
        assertThat(appended).as("commands appended while the replay ran").isTrue();
        assertThat(report.divergences()).isEmpty();
        // The worker ticks while a lease may be live, so its rows may be a tick behind the log's end.
        assertThat(report.unverifiable()).allMatch(note -> note.contains("a worker is running"));
        // Judged as any: the holder's acquire, the waiter's, a status; the release and the ticks appended meanwhile.
        assertThat(report.records()).isGreaterThanOrEqualTo(5);
        assertThat(report.repliesCompared()).as("acquire, status, release, the waiter's grant").isEqualTo(4);
        assertThat(report.eventsCompared()).as("granted, queued, released, granted, expired").isEqualTo(5);
    }
}
