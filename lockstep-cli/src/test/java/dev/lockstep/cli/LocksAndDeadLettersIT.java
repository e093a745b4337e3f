package dev.lockstep.cli;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.TopicCollector;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** {@code lockstep locks} and {@code lockstep dlq} against a populated system (real broker, database, worker). */
class LocksAndDeadLettersIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What a run of the CLI printed, and its exit code. */
    private record Run(int code, String out, String err) {

        List<JsonNode> lines() throws Exception {
            List<JsonNode> lines = new ArrayList<>();
            for (String line : out.split("\n")) {
                if (!line.isBlank()) {
                    lines.add(JSON.readTree(line));
                }
            }
            return lines;
        }
    }

    private static Run lockstep(String... args) {
        return lockstep(Map.of(), args);
    }

    /** @param settings more of the environment, as an operator sets it for every command */
    private static Run lockstep(Map<String, String> settings, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        Map<String, String> environment = new HashMap<>(settings);
        environment.putAll(Map.of(
                "LOCKSTEP_BOOTSTRAP_SERVERS", env.kafka().bootstrapServers(),
                "LOCKSTEP_DB_URL", env.database().jdbcUrl(),
                "LOCKSTEP_COMMAND_TOPIC", env.topics().commands(),
                "LOCKSTEP_REPLY_TOPIC", env.topics().replies(),
                "LOCKSTEP_DEAD_LETTER_TOPIC", env.topics().deadLetters(),
                "LOCKSTEP_EVENTS_TOPIC", env.topics().events()));
        CommandLine cli = LockstepCli.commandLine(environment);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @BeforeAll
    static void populate() throws Exception {
        // The smallest dead-letter topic the worker starts with: a large record's dead letter is cut.
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, env.topics().deadLetters()),
                    List.of(new AlterConfigOp(new ConfigEntry("max.message.bytes", "16384"),
                            AlterConfigOp.OpType.SET)))).all().get();
        }
        env.startWorker();
        for (String resource : List.of("report:a", "report:b", "report:c")) {
            assertThat(env.call(acquire(newId(), resource, "nightly", 600)).path("outcome").asText()).isEqualTo("acquired");
        }
        assertThat(env.call(acquire(newId(), "billing:1", "payments", 600).put("value", "10.0.0.7:8080")).path("outcome")
                .asText()).isEqualTo("acquired");
        assertThat(env.call(acquire(newId(), "report:gone", "nightly", 1)).path("outcome").asText()).isEqualTo("acquired");
    }

    @Test
    void locksListsTheLiveLeasesSortedFilteredAndPaged() throws Exception {
        Thread.sleep(1_200); // report:gone has ended
        Run all = lockstep("locks", "--prefix", "report:", "--format", "json");
        assertThat(all.code()).as(all.err()).isZero();
        JsonNode listed = all.lines().get(0);
        assertThat(listed.path("leases").findValuesAsText("resource")).containsExactly("report:a", "report:b", "report:c");
        assertThat(listed.path("leases").get(0).path("owner").asText()).isEqualTo("nightly");
        assertThat(listed.path("leases").get(0).path("fencing_token").asLong()).isPositive();
        assertThat(listed.path("leases").get(0).path("time_left_ms").asLong()).isBetween(1L, 600_000L);
        assertThat(listed.path("leases").get(0).has("value")).as("a lock publishes none").isFalse();
        Run leader = lockstep("locks", "--prefix", "billing:", "--format", "json");
        assertThat(leader.lines().get(0).path("leases").get(0).path("value").asText()).isEqualTo("10.0.0.7:8080");
        assertThat(listed.path("next_after").isNull()).isTrue();

        JsonNode first = lockstep("locks", "--prefix", "report:", "--limit", "2", "--format", "json").lines().get(0);
        assertThat(first.path("leases").findValuesAsText("resource")).containsExactly("report:a", "report:b");
        assertThat(first.path("next_after").asText()).isEqualTo("report:b");
        JsonNode second = lockstep("locks", "--prefix", "report:", "--limit", "2", "--after", "report:b", "--format",
                "json").lines().get(0);
        assertThat(second.path("leases").findValuesAsText("resource")).containsExactly("report:c");

        assertThat(lockstep("locks", "--owner", "payments", "--format", "json").lines().get(0).path("leases")
                .findValuesAsText("resource")).containsExactly("billing:1");
        Run text = lockstep("locks", "--prefix", "report:");
        assertThat(text.out()).contains("report:a").contains("nightly").contains("3 live leases")
                .doesNotContain("report:gone");
        assertThat(lockstep("locks", "--limit", "0").code()).isEqualTo(ExitCodes.USAGE);
    }

    /** A semaphore's holders are listed each on its permit, and never split between two pages. */
    @Test
    void locksListsASharedResourcesHoldersOnOnePage() throws Exception {
        Run byCli = lockstep("acquire", "pool:x", "--owner", "a", "--ttl", "600", "--limit", "3");
        assertThat(byCli.code()).as(byCli.err()).isZero();
        assertThat(byCli.out()).contains("\"permit\":0").contains("\"limit\":3");
        assertThat(lockstep("acquire", "pool:x", "--owner", "z", "--ttl", "600", "--limit", "0").code())
                .isEqualTo(ExitCodes.USAGE);
        for (String owner : List.of("b", "c")) {
            assertThat(env.call(acquire(newId(), "pool:x", owner, 600).put("limit", 3)).path("outcome").asText())
                    .isEqualTo("acquired");
        }
        assertThat(env.call(acquire(newId(), "pool:y", "d", 600)).path("outcome").asText()).isEqualTo("acquired");
        JsonNode first = lockstep("locks", "--prefix", "pool:", "--limit", "2", "--format", "json").lines().get(0);
        assertThat(first.path("leases").findValuesAsText("resource")).containsExactly("pool:x", "pool:x", "pool:x");
        assertThat(first.path("leases").findValuesAsText("permit")).containsExactly("0", "1", "2");
        assertThat(first.path("next_after").asText()).isEqualTo("pool:x");
        JsonNode second = lockstep("locks", "--prefix", "pool:", "--limit", "2", "--after", "pool:x", "--format",
                "json").lines().get(0);
        assertThat(second.path("leases").findValuesAsText("resource")).containsExactly("pool:y");
        assertThat(second.path("leases").get(0).has("permit")).as("a lock's row as before").isFalse();
        assertThat(lockstep("locks", "--prefix", "pool:").out()).contains("pool:x #1/3");
    }

    @Test
    void dlqShowsWhyAndReplaysOneOnceItsCauseIsFixed() throws Exception {
        String garbled = "garbled-" + newId();
        env.send(garbled, "not json \u001b[2J");
        String billing = "lock.replies.billing-" + newId();
        String requestId = newId();
        env.send(acquire(requestId, "invoice:" + requestId, "billing", 60).put("reply_to", billing));
        env.deadLetters().await(r -> new String(r.value(), StandardCharsets.UTF_8).contains(requestId), 1);
        env.deadLetters().await(r -> new String(r.key(), StandardCharsets.UTF_8).equals(garbled), 1);

        Run shown = lockstep("dlq", "--format", "json", "--max-chars", "100000");
        assertThat(shown.code()).as(shown.err()).isZero();
        JsonNode unreadable = shown.lines().stream().filter(l -> l.path("key").asText().equals(garbled)).findFirst()
                .orElseThrow();
        assertThat(unreadable.path("reason").asText()).startsWith("not a JSON object");
        assertThat(unreadable.path("source").asText()).startsWith(env.topics().commands() + "-");
        assertThat(unreadable.path("value").asText()).isEqualTo("not json \u001b[2J");
        JsonNode undeliverable = shown.lines().stream().filter(l -> l.path("value").asText().contains(requestId))
                .findFirst().orElseThrow();
        assertThat(undeliverable.path("reason").asText()).contains(billing).contains("does not exist");
        assertThat(undeliverable.path("headers").path("lockstep-reply").asText()).contains("\"outcome\":\"acquired\"");
        // The worker wrote the command again, marked, to its own partition; the dead letter came from that mark.
        String decidedAt = undeliverable.path("headers").path("lockstep-reply-of").asText();
        assertThat(decidedAt).startsWith(env.topics().commands() + "-");
        assertThat(undeliverable.path("source").asText()).startsWith(decidedAt.substring(0, decidedAt.indexOf('@') + 1))
                .isNotEqualTo(decidedAt);
        try (TopicCollector commands = env.collect(env.topics().commands())) {
            ConsumerRecord<byte[], byte[]> mark = commands.await(r -> r.headers().lastHeader("lockstep-undeliverable") != null
                    && new String(r.value(), StandardCharsets.UTF_8).contains(requestId), 1).get(0);
            assertThat(mark.topic() + "-" + mark.partition() + "@" + mark.offset())
                    .isEqualTo(undeliverable.path("source").asText());
            assertThat(new String(mark.headers().lastHeader("lockstep-undeliverable").value(), StandardCharsets.UTF_8))
                    .isEqualTo(undeliverable.path("reason").asText());
        }
        assertThat(lockstep("dlq").out()).as("control characters escaped in text").contains("not json \\u001b[2J")
                .doesNotContain("\u001b");

        String position = undeliverable.path("position").asText();
        String replay = position.substring(position.lastIndexOf('-') + 1);
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(billing, 1, (short) 1))).all().get();
        }
        // The topic exists now, the reply is not on it: the log's mark says why, so a replay expects none.
        Run replayed = lockstep("replay", "--format", "json");
        assertThat(replayed.lines().get(replayed.lines().size() - 1).path("divergences").toString())
                .as(replayed.out()).doesNotContain(requestId);
        assertThat(replayed.code()).as(replayed.out() + replayed.err()).isNotEqualTo(1);
        // The worker looks a missing reply topic up again after 5 s (AdminTopicCatalog).
        Thread.sleep(6_000);
        try (TopicCollector replies = env.collect(billing)) {
            Run unconfirmed = lockstep("dlq", "--replay", replay);
            assertThat(unconfirmed.code()).isEqualTo(ExitCodes.USAGE);
            assertThat(unconfirmed.out()).contains("add --yes");
            Run published = lockstep("dlq", "--replay", replay, "--yes");
            assertThat(published.code()).as(published.err()).isZero();
            assertThat(published.out()).contains("published to " + env.topics().commands() + "-");
            List<ConsumerRecord<byte[], byte[]>> answered = replies.await(r -> new String(r.key(), StandardCharsets.UTF_8)
                    .equals(requestId), 1);
            assertThat(new String(answered.get(0).value(), StandardCharsets.UTF_8))
                    .as("the reply it was decided with, now delivered").isEqualTo(undeliverable.path("headers")
                            .path("lockstep-reply").asText());
            assertThat(replies.all()).as("applied once, answered once").hasSize(1);
        }
        assertThat(lockstep("dlq", "--replay", "0@999999").code()).isEqualTo(ExitCodes.ERROR);
        assertThat(lockstep("dlq", "--replay", "x@y").code()).isEqualTo(ExitCodes.USAGE);
    }

    /**
     * A dead letter of a command decided longer ago than the request retention: the worker no
     * longer remembers its request ID, and publishing it as it was would apply it a second time.
     * The replay refuses it, saying how to send it again deliberately; --as-new does that, with a
     * new request ID. (The retention is the operator's setting, shared with the worker's through
     * LOCKSTEP_REQUEST_RETENTION; two seconds here.)
     */
    @Test
    void aDeadLetterOlderThanTheRequestRetentionIsReplayedOnlyAsANewRequest() throws Exception {
        Map<String, String> shortRetention = Map.of("LOCKSTEP_REQUEST_RETENTION", "2");
        String missing = "lock.replies.late-" + newId();
        String requestId = newId();
        env.send(acquire(requestId, "late:" + requestId, "billing", 60).put("reply_to", missing));
        env.deadLetters().await(r -> new String(r.value(), StandardCharsets.UTF_8).contains(requestId), 1);
        JsonNode dead = lockstep("dlq", "--format", "json", "--max-chars", "100000").lines().stream()
                .filter(l -> l.path("value").asText().contains(requestId)).findFirst().orElseThrow();
        String position = dead.path("position").asText();
        String replay = position.substring(position.lastIndexOf('-') + 1);
        Thread.sleep(3_000);
        try (TopicCollector commands = env.collect(env.topics().commands())) {
            Run refused = lockstep(shortRetention, "dlq", "--replay", replay, "--yes");
            assertThat(refused.code()).as(refused.out() + refused.err()).isEqualTo(ExitCodes.ERROR);
            assertThat(refused.err()).contains("not published").contains("request retention").contains("--as-new");

            Run renamed = lockstep(shortRetention, "dlq", "--replay", replay, "--yes", "--as-new");
            assertThat(renamed.code()).as(renamed.err()).isZero();
            String newId = renamed.out().substring(renamed.out().indexOf("as the new request ") + 19).strip();
            assertThat(newId).isNotEqualTo(requestId).isNotBlank();
            // The command topic holds ticks too (no value): the worker's, for leases that ended.
            List<ConsumerRecord<byte[], byte[]>> sent = commands.await(r -> r.value() != null
                    && new String(r.value(), StandardCharsets.UTF_8).contains(newId), 1);
            assertThat(new String(sent.get(0).value(), StandardCharsets.UTF_8)).contains("late:" + requestId);
            Thread.sleep(500);
            assertThat(commands.matching(r -> r.value() != null && new String(r.value(), StandardCharsets.UTF_8)
                    .contains("\"request_id\":\"" + requestId + "\"")))
                    .as("the command with its old request ID: as sent, and the worker's mark; never published again")
                    .hasSize(2);
        }
    }

    /**
     * A record too large for the dead-letter topic leaves a cut dead letter there (the start of
     * its value, its size and SHA-256); replaying it publishes the record whole, read from the
     * command topic, not the cut copy.
     */
    @Test
    void aDeadLetterCutToFitIsReplayedWholeFromTheCommandTopic() throws Exception {
        String key = "big-" + newId();
        String value = "{\"request_id\":\"" + newId() + "\",\"pad\":\"" + "x".repeat(20_000) + "\"}";
        env.send(key, value);
        ConsumerRecord<byte[], byte[]> dead = env.deadLetters().await(r -> r.key() != null
                && new String(r.key(), StandardCharsets.UTF_8).equals(key), 1).get(0);
        assertThat(dead.value().length).isLessThan(16_384);
        assertThat(new String(dead.headers().lastHeader("lockstep-original-value-bytes").value(),
                StandardCharsets.UTF_8)).isEqualTo(Integer.toString(value.length()));
        try (TopicCollector commands = env.collect(env.topics().commands())) {
            Run replayed = lockstep("dlq", "--replay", dead.partition() + "@" + dead.offset(), "--yes");
            assertThat(replayed.code()).as(replayed.err()).isZero();
            List<ConsumerRecord<byte[], byte[]>> sent = commands.await(r -> r.key() != null
                    && new String(r.key(), StandardCharsets.UTF_8).equals(key), 2);
            assertThat(new String(sent.get(1).value(), StandardCharsets.UTF_8)).as("the record whole").isEqualTo(value);
            assertThat(sent.get(1).headers().lastHeader("lockstep-original-value-bytes")).isNull();
        }
    }

    /**
     * The grant of an acquire that waited is published by the release that handed over; its reply
     * topic missing, the dead letter carries that grant (not the release's reply), names the
     * acquire, is not expected by a replay, and replays as the acquire once the topic exists.
     */
    @Test
    void aWaitersUndeliverableGrantIsDeadLetteredAsItsOwnAndReplayedAsItsAcquire() throws Exception {
        String resource = "queue:" + newId();
        String missing = "lock.replies.waiter-" + newId();
        String waiter = newId();
        assertThat(env.call(acquire(newId(), resource, "holder", 600)).path("outcome").asText()).isEqualTo("acquired");
        env.send(acquire(waiter, resource, "waiter", 60).put("wait_ms", 60_000).put("reply_to", missing));
        Thread.sleep(500); // queued behind the holder
        assertThat(env.call(release(newId(), resource, "holder")).path("outcome").asText()).isEqualTo("released");

        ConsumerRecord<byte[], byte[]> dead = env.deadLetters().await(r -> r.headers().lastHeader("lockstep-reply") != null
                && new String(r.headers().lastHeader("lockstep-reply").value(), StandardCharsets.UTF_8).contains(waiter),
                1).get(0);
        String reply = new String(dead.headers().lastHeader("lockstep-reply").value(), StandardCharsets.UTF_8);
        assertThat(reply).contains("\"outcome\":\"acquired\"").contains("\"resource\":\"" + resource + "\"");
        assertThat(new String(dead.headers().lastHeader("lockstep-error").value(), StandardCharsets.UTF_8))
                .contains(missing).contains("does not exist");
        try (TopicCollector commands = env.collect(env.topics().commands())) {
            ConsumerRecord<byte[], byte[]> acquired = commands.await(r -> r.value() != null && r.headers()
                    .lastHeader("lockstep-undeliverable") == null
                    && new String(r.value(), StandardCharsets.UTF_8).contains(waiter), 1).get(0);
            assertThat(new String(dead.headers().lastHeader("lockstep-reply-of").value(), StandardCharsets.UTF_8))
                    .as("names the acquire").isEqualTo(acquired.topic() + "-" + acquired.partition() + "@"
                            + acquired.offset());
        }

        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(missing, 1, (short) 1))).all().get();
        }
        Run replayed = lockstep("replay", "--format", "json");
        assertThat(replayed.lines().get(replayed.lines().size() - 1).path("divergences").toString())
                .as(replayed.out()).doesNotContain(waiter);
        Thread.sleep(6_000); // the worker looks a missing reply topic up again after 5 s
        try (TopicCollector replies = env.collect(missing)) {
            Run published = lockstep("dlq", "--replay", dead.partition() + "@" + dead.offset(), "--yes");
            assertThat(published.code()).as(published.err()).isZero();
            ConsumerRecord<byte[], byte[]> answered = replies.await(r -> new String(r.key(), StandardCharsets.UTF_8)
                    .equals(waiter), 1).get(0);
            assertThat(new String(answered.value(), StandardCharsets.UTF_8)).as("the grant it got, now delivered")
                    .isEqualTo(reply);
        }
    }
}
