package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.history.HistoryChecker;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * PostgreSQL is a projection of the log: a database restored from a backup taken mid-run is
 * brought forward by applying the records again, with the same replies and tokens; restored past
 * the log's retention, the partitions with lost records grant nothing until every lease the lost
 * records may have granted has ended.
 */
@Tag("host-tools") // needs PostgreSQL's pg_dump and psql
class DatabaseRestoreIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Pattern URL = Pattern.compile("jdbc:postgresql://([^:/]+):(\\d+)/([^?]+)\\?(?:.*&)?user=([^&]+).*");

    private static TopicNames topics(String name) {
        return env.topics().suffixed("-" + name);
    }

    private static RunningWorker worker(TopicNames topics) {
        return env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("restore-" + topics.commands()));
    }




    @Test
    void aRestoredBackupIsBroughtForwardWithTheSameRepliesAndTokens() throws Exception {
        TopicNames topics = topics("restore");
        LockstepExtension.createTopics(env.kafka(), topics);
        Path dump = Files.createTempFile("lockstep-backup-", ".sql");
        List<ObjectNode> second = Waves.wave("w2", 60, "res-");
        Map<String, byte[]> firstTime;
        Set<String> sent = new HashSet<>();
        try (Wire wire = new Wire(env.kafka(), topics)) {
            try (RunningWorker worker = worker(topics)) {
                List<ObjectNode> first = Waves.wave("w1", 60, "res-");
                Waves.run(wire, first);
                first.forEach(c -> sent.add(c.path("request_id").asText()));
                pgDump(dump); // while the worker runs
                firstTime = Waves.run(wire, second);
                second.forEach(c -> sent.add(c.path("request_id").asText()));
            }
            restore(dump);
            try (RunningWorker worker = worker(topics)) {
                for (ObjectNode command : second) {
                    String id = command.path("request_id").asText();
                    assertThat(wire.await(id, 2).get(1).value()).as("applied again: " + id)
                            .isEqualTo(firstTime.get(id));
                }
            }
        }
        HistoryChecker.Result result = HistoryChecker.check(Histories.read(env.kafka(), topics, sent));
        result.assertSafe();
        assertThat(result.leasesGranted()).isGreaterThan(5);
        ReplayReport replay = new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
    }

    /**
     * The backup restored in place while the worker runs: the worker's next batch finds the
     * partition's position behind where it committed, applies nothing on top of the lost state,
     * positions the partition from the database again and applies the records in between once
     * more. Without that, the next wave would be decided as if the second had never been: its
     * leases granted again to others.
     */
    @Test
    void aBackupRestoredInPlaceUnderARunningWorkerIsBroughtForwardBeforeAnythingIsAppliedOnIt() throws Exception {
        TopicNames topics = topics("in-place");
        LockstepExtension.createTopics(env.kafka(), topics);
        Path dump = Files.createTempFile("lockstep-backup-", ".sql");
        List<ObjectNode> first = Waves.wave("w1", 60, "in-place-");
        List<ObjectNode> second = Waves.wave("w2", 60, "in-place-");
        List<ObjectNode> third = Waves.wave("w3", 60, "in-place-");
        Set<String> sent = new HashSet<>();
        try (Wire wire = new Wire(env.kafka(), topics); RunningWorker worker = worker(topics)) {
            Waves.run(wire, first);
            pgDump(dump);
            Map<String, byte[]> firstTime = Waves.run(wire, second);
            restore(dump);
            Waves.run(wire, third);
            for (ObjectNode command : second) {
                String id = command.path("request_id").asText();
                assertThat(wire.await(id, 2).get(1).value()).as("applied again: " + id).isEqualTo(firstTime.get(id));
            }
        }
        List.of(first, second, third).forEach(wave -> wave.forEach(c -> sent.add(c.path("request_id").asText())));
        // The database holds the other tests' leases too: these topics' tokens start above them.
        HistoryChecker.Result result = HistoryChecker.check(Histories.read(env.kafka(), topics, sent));
        result.assertSafe();
        assertThat(result.leasesGranted()).isGreaterThan(5);
        ReplayReport replay = new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
        assertThat(replay.unverifiable()).as(replay.text()).isEmpty();
    }

    @Test
    void aBackupRestoredPastTheLogsRetentionGrantsNothingUntilTheLostLeasesHaveEnded() throws Exception {
        TopicNames topics = topics("lost");
        LockstepExtension.createTopics(env.kafka(), topics);
        Path dump = Files.createTempFile("lockstep-backup-", ".sql");
        try (Wire wire = new Wire(env.kafka(), topics)) {
            try (RunningWorker worker = worker(topics)) {
                Waves.run(wire, Waves.wave("w1", 20, "res-"));
                pgDump(dump);
                Waves.run(wire, Waves.wave("w2", 60, "res-")); // grants the backup never saw
            }
            restore(dump);
            deleteAllRecords(topics); // retention took every record the backup lacks
            try (RunningWorker worker = worker(topics)) {
                for (int i = 0; i < 5; i++) {
                    JsonNode refused = wire.call(acquire(newId(), "res-" + i, "newcomer", 30));
                    assertThat(refused.path("outcome").asText()).as("res-" + i).isEqualTo("not_acquired");
                    assertThat(refused.path("retry_after_ms").asLong()).as("until the longest TTL has passed")
                            .isGreaterThan(86_000_000L);
                }
            }
        }
        assertThat(Histories.epochReasons(env, topics)).anyMatch(r -> r.contains("are gone from the log"));
    }

    private static void deleteAllRecords(TopicNames topics) throws Exception {
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            Map<TopicPartition, RecordsToDelete> all = new HashMap<>();
            int partitions = admin.describeTopics(List.of(topics.commands())).allTopicNames().get()
                    .get(topics.commands()).partitions().size();
            for (int p = 0; p < partitions; p++) {
                all.put(new TopicPartition(topics.commands(), p), RecordsToDelete.beforeOffset(-1));
            }
            admin.deleteRecords(all).all().get();
        }
    }

    private static void pgDump(Path file) throws Exception {
        Matcher url = url();
        exec(List.of("pg_dump", "-h", url.group(1), "-p", url.group(2), "-U", url.group(4), "-d", url.group(3),
                "--clean", "--if-exists", "-f", file.toString()));
    }

    private static void restore(Path file) throws Exception {
        Matcher url = url();
        try (Connection admin = env.serverAdmin(); Statement st = admin.createStatement()) {
            st.execute("DROP DATABASE " + env.databaseName() + " WITH (FORCE)"); // generated identifiers
            st.execute("CREATE DATABASE " + env.databaseName());
        }
        // One transaction: a worker running meanwhile sees no table, then every table whole.
        exec(List.of("psql", "-q", "-1", "-v", "ON_ERROR_STOP=1", "-h", url.group(1), "-p", url.group(2), "-U",
                url.group(4), "-d", url.group(3), "-f", file.toString()));
    }

    private static Matcher url() {
        Matcher url = URL.matcher(env.database().jdbcUrl());
        if (!url.matches()) {
            throw new IllegalStateException("cannot take pg_dump arguments from " + env.database().jdbcUrl());
        }
        return url;
    }

    private static void exec(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed (pg_dump and psql must be on the PATH): "
                    + output);
        }
    }
}
