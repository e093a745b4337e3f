package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static dev.lockstep.testkit.Commands.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Verdict;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The command topic grown under a running worker (docs/architecture.md, "Growing the command
 * topic"): every command is answered, a resource that moved keeps its lease, token and waiters,
 * and the next token there is above every old one.
 */
class GrowthIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int FROM = 2;
    private static final int TO = 3;

    private static RunningWorker worker(KafkaSettings kafka, TopicNames topics) {
        return env.startWorker(WorkerSettings.defaults(kafka).withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("growth-" + topics.commands()));
    }

    /** Sends the command where its key belongs by {@code count} partitions, then where each {@code moved} says. */
    private static JsonNode follow(Wire wire, ObjectNode command, int count) {
        int partition = ResourcePartition.of(command.path("resource").asText(), count);
        for (int answer = 1; answer <= 40; answer++) {
            JsonNode reply = wire.call(command, partition, answer);
            if (!reply.path("outcome").asText().equals("moved")) {
                return reply;
            }
            partition = reply.path("partition").asInt();
            sleep(Duration.ofMillis(100));
        }
        throw new AssertionError("still moved after 40 sends: " + command);
    }

    @Test
    void leasesWaitersAndTokensCarryOverToTheirNewPartitionsAndEveryCommandIsAnswered() throws Exception {
        TopicNames topics = env.topics().suffixed("-grow");
        KafkaSettings kafka = env.kafka();
        LockstepExtension.createTopics(kafka, topics, FROM);
        List<String> resources = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            resources.add("grown-" + i);
        }
        try (RunningWorker worker = worker(kafka, topics); Wire wire = new Wire(kafka, topics);
                LockClient client = LockClient.start(LockClientSettings.defaults(kafka).withTopics(topics))) {
            Map<String, Long> tokens = new HashMap<>();
            for (String resource : resources) {
                JsonNode reply = follow(wire, acquire(newId(), resource, "holder", 600), FROM);
                assertThat(reply.path("outcome").asText()).isEqualTo("acquired");
                tokens.put(resource, reply.path("lock").path("fencing_token").asLong());
            }
            String moving = resources.stream().filter(r -> ResourcePartition.of(r, FROM) != ResourcePartition.of(r, TO))
                    .findFirst().orElseThrow();
            String waiterId = newId();
            ObjectNode waits = acquire(waiterId, moving, "waiter", 60);
            waits.put("wait_ms", 60_000);
            wire.send(waits);
            await().atMost(Duration.ofSeconds(10)).until(() -> queued(topics, moving) == 1);

            // A caller asks about every resource, one after another, from before the growth to after it.
            AtomicBoolean asking = new AtomicBoolean(true);
            AtomicLong longest = new AtomicLong();
            AtomicLong asked = new AtomicLong();
            Thread caller = new Thread(() -> {
                while (asking.get()) {
                    for (String resource : resources) {
                        long start = System.nanoTime();
                        try {
                            client.status(resource).get(20, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            longest.set(Long.MAX_VALUE);
                        }
                        longest.accumulateAndGet(System.nanoTime() - start, Math::max);
                        asked.incrementAndGet();
                    }
                }
            }, "growth-caller");
            caller.start();
            sleep(Duration.ofSeconds(1));
            try (Admin admin = Admin.create(kafka.with(Map.of()))) {
                admin.createPartitions(Map.of(topics.commands(), NewPartitions.increaseTo(TO),
                        topics.events(), NewPartitions.increaseTo(TO))).all().get();
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> Histories.growthFinished(env, topics));
            sleep(Duration.ofSeconds(1));
            asking.set(false);
            caller.join(30_000);
            System.out.printf("growth from %d to %d partitions: %d statuses asked across it, the longest answered in "
                    + "%d ms%n", FROM, TO, asked.get(), TimeUnit.NANOSECONDS.toMillis(longest.get()));
            assertThat(Duration.ofNanos(longest.get())).as("the longest wait for an answer across the growth")
                    .isLessThan(Duration.ofSeconds(10));

            long highest = tokens.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            for (String resource : resources) {
                JsonNode held = follow(wire, status(newId(), resource), FROM);
                assertThat(held.path("outcome").asText()).as(resource).isEqualTo("locked");
                assertThat(held.path("lock").path("owner").asText()).isEqualTo("holder");
                assertThat(held.path("lock").path("fencing_token").asLong()).isEqualTo(tokens.get(resource));
                assertThat(follow(wire, acquire(newId(), resource, "thief", 30), TO).path("outcome").asText())
                        .isEqualTo("not_acquired");
            }
            // A client whose producer knew two partitions follows the moves, and learns the count.
            String clientsOwn = resources.stream().filter(r -> !r.equals(moving)
                    && ResourcePartition.of(r, FROM) != ResourcePartition.of(r, TO)).findFirst().orElseThrow();
            Verdict seen = client.status(clientsOwn).get(10, TimeUnit.SECONDS);
            assertThat(seen).isInstanceOf(Verdict.Locked.class);
            assertThat(((Verdict.Locked) seen).lease().fencingToken()).isEqualTo(tokens.get(clientsOwn));
            assertThat(client.acquire("brand-new", "client", Duration.ofSeconds(30)).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(Verdict.Acquired.class);
            JsonNode released = follow(wire, release(newId(), moving, "holder"), TO);
            assertThat(released.path("outcome").asText()).isEqualTo("released");
            JsonNode granted = Commands.parse(wire.await(waiterId, 1).get(0).value());
            assertThat(granted.path("outcome").asText()).as("the waiter carried over").isEqualTo("acquired");
            assertThat(granted.path("lock").path("fencing_token").asLong()).isGreaterThan(highest);
            assertThat(wire.deadLetters()).isEmpty();
        }
        ReplayReport replayed = new Replay(kafka, env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                (read, total) -> { });
        assertThat(replayed.divergences()).as(replayed.text()).isEmpty();
        assertThat(replayed.exitCode()).as(replayed.text()).isZero();
    }

    /**
     * The second and third cases: two workers (child JVMs) grow the topic from 2 to 3
     * partitions, one is killed (SIGKILL) once the growth has started, the other finishes it; then
     * a third joins and the topic grows again, to 5. Leases and tokens carry over both growths,
     * and the replay reproduces every reply, event and row.
     */
    @Test
    void twoGrowthsWithTwoWorkersOneKilledInTheMiddle() throws Exception {
        TopicNames topics = env.topics().suffixed("-grow-twice");
        KafkaSettings kafka = env.kafka();
        LockstepExtension.createTopics(kafka, topics, FROM);
        List<String> resources = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            resources.add("twice-" + i);
        }
        List<ChildWorker> workers = new ArrayList<>(List.of(
                ChildWorker.start(env, topics, "grow-a", "grow-twice", Map.of()),
                ChildWorker.start(env, topics, "grow-b", "grow-twice", Map.of())));
        try (Wire wire = new Wire(kafka, topics)) {
            Map<String, Long> tokens = new HashMap<>();
            for (String resource : resources) {
                JsonNode reply = follow(wire, acquire(newId(), resource, "holder", 600), FROM);
                assertThat(reply.path("outcome").asText()).isEqualTo("acquired");
                tokens.put(resource, reply.path("lock").path("fencing_token").asLong());
            }
            grow(kafka, topics, TO);
            await().atMost(Duration.ofSeconds(30)).until(() -> growths(topics, "started_at") == 1);
            workers.remove(0).kill();
            await().atMost(Duration.ofSeconds(60)).until(() -> growths(topics, "finished_at") == 1);
            assertHeld(wire, resources, tokens, TO);

            workers.add(ChildWorker.start(env, topics, "grow-c", "grow-twice", Map.of()));
            grow(kafka, topics, 5);
            await().atMost(Duration.ofSeconds(60)).until(() -> growths(topics, "finished_at") == 2);
            assertHeld(wire, resources, tokens, 5);
            long highest = tokens.values().stream().mapToLong(Long::longValue).max().orElseThrow();
            assertThat(follow(wire, acquire(newId(), "twice-new", "someone", 30), 5).path("lock")
                    .path("fencing_token").asLong()).isGreaterThan(highest);
            assertThat(wire.deadLetters()).isEmpty();
        } finally {
            for (ChildWorker worker : workers) {
                worker.close();
            }
        }
        ReplayReport replayed = new Replay(kafka, env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                (read, total) -> { });
        assertThat(replayed.divergences()).as(replayed.text()).isEmpty();
    }

    private static void assertHeld(Wire wire, List<String> resources, Map<String, Long> tokens, int count) {
        for (String resource : resources) {
            JsonNode held = follow(wire, status(newId(), resource), count);
            assertThat(held.path("outcome").asText()).as(resource).isEqualTo("locked");
            assertThat(held.path("lock").path("fencing_token").asLong()).as(resource).isEqualTo(tokens.get(resource));
        }
    }

    private static void grow(KafkaSettings kafka, TopicNames topics, int to) throws Exception {
        try (Admin admin = Admin.create(kafka.with(Map.of()))) {
            admin.createPartitions(Map.of(topics.events(), NewPartitions.increaseTo(to))).all().get();
            admin.createPartitions(Map.of(topics.commands(), NewPartitions.increaseTo(to))).all().get();
        }
    }

    /** How many growths of the topic have {@code column} (started_at, finished_at) set. */
    private static int growths(TopicNames topics, String column) throws SQLException {
        String sql = "finished_at".equals(column)
                ? "SELECT count(*) FROM topic_growths WHERE topic = ? AND finished_at IS NOT NULL"
                : "SELECT count(*) FROM topic_growths WHERE topic = ?";
        try (Connection c = env.jdbc(); PreparedStatement select = c.prepareStatement(sql)) {
            select.setString(1, topics.commands());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static int queued(TopicNames topics, String resource) throws SQLException {
        try (Connection c = env.jdbc(); PreparedStatement select = c.prepareStatement(
                "SELECT count(*) FROM lock_waiters WHERE topic = ? AND resource = ?")) {
            select.setString(1, topics.commands());
            select.setString(2, resource);
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }


    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
