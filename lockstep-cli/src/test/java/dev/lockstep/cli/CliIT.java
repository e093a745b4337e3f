package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.replay.ReplayReport;
import dev.lockstep.testkit.LockstepExtension;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The CLI, in process, through the client library, against a real worker. */
class CliIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @BeforeAll
    static void startWorker() {
        env.startWorker();
    }

    private static CliRun run(String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        full.addAll(List.of("--bootstrap-servers", env.kafka().bootstrapServers(),
                "--command-topic", env.topics().commands(), "--reply-topic", env.topics().replies(),
                "--dead-letter-topic", env.topics().deadLetters(), "--events-topic", env.topics().events()));
        return runExactly(full.toArray(String[]::new));
    }

    private static CliRun runExactly(String... args) {
        return CliRun.of(Map.of(), args);
    }

    @Test
    void eachOutcomeHasItsExitCode() {
        CliRun acquired = run("acquire", "payment:42", "--owner", "worker-1", "--ttl", "30");
        assertThat(acquired.exitCode()).isZero();
        assertThat(acquired.json().path("outcome").asText()).isEqualTo("acquired");
        long token = acquired.json().path("lock").path("fencing_token").asLong();

        assertThat(run("acquire", "payment:42", "--owner", "worker-2", "--ttl", "30").exitCode())
                .isEqualTo(ExitCodes.NOT_ACQUIRED);
        CliRun waited = run("acquire", "payment:42", "--owner", "worker-2", "--ttl", "30", "--wait", "1");
        assertThat(waited.exitCode()).isEqualTo(ExitCodes.NOT_ACQUIRED);
        assertThat(waited.json().path("reason").asText()).as("it waited in the queue").isEqualTo("wait_expired");
        assertThat(run("status", "payment:42").exitCode()).isZero();
        assertThat(run("renew", "payment:42", "--owner", "worker-1", "--ttl", "60", "--fencing-token",
                Long.toString(token)).exitCode()).isZero();
        assertThat(run("release", "payment:42", "--owner", "worker-2").exitCode()).isEqualTo(ExitCodes.FORBIDDEN);
        assertThat(run("acquire", "payment:42", "--owner", "worker-1", "--ttl", "0").exitCode())
                .isEqualTo(ExitCodes.INVALID);
        CompletableFuture<CliRun> queued = CompletableFuture.supplyAsync(
                () -> run("acquire", "payment:42", "--owner", "worker-3", "--ttl", "30", "--wait", "20"));
        await().atMost(Duration.ofSeconds(15)).until(
                () -> run("status", "payment:42", "--owner", "worker-3").json().path("position").asInt() == 1);
        assertThat(run("status", "payment:42", "--owner", "worker-2").json().has("position"))
                .as("worker-2 does not wait").isFalse();
        assertThat(run("release", "payment:42", "--owner", "worker-1").exitCode()).isZero();
        assertThat(queued.join().json().path("lock").path("owner").asText()).as("its turn came").isEqualTo("worker-3");
        assertThat(run("release", "payment:42", "--owner", "worker-3").exitCode()).isZero();
        assertThat(run("status", "payment:42").exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
    }

    @Test
    void replayReproducesWhatTheWorkerDidAsTextOrJson() throws Exception {
        assertThat(run("acquire", "replayed:1", "--owner", "w", "--ttl", "30").exitCode()).isZero();
        assertThat(run("release", "replayed:1", "--owner", "w").exitCode()).isZero();
        // The worker runs on, ticking the partition whose lease ended within its TTL: that partition's
        // rows may trail the log by a tick, which replay says it could not compare; nothing diverges.
        CliRun text = runReplay("--format", "text");
        assertThat(text.exitCode()).as(text.out() + text.err())
                .isIn(ReplayReport.REPRODUCED, ReplayReport.CANNOT_VERIFY);
        assertThat(text.out()).contains("0 divergences");
        assertThat(text.out().lines().filter(line -> line.startsWith("cannot verify")))
                .allMatch(line -> line.contains("a worker is running"));
        CliRun json = runReplay("--format", "json");
        assertThat(json.json().path("outcome").asText()).isIn("reproduced", "cannot_verify");
        assertThat(json.json().path("divergences")).as(json.out()).isEmpty();
        assertThat(json.json().path("events_compared").asInt()).isGreaterThanOrEqualTo(2);
        Path impatient = Files.createTempFile("impatient", ".properties");
        impatient.toFile().deleteOnExit();
        Files.writeString(impatient, "default.api.timeout.ms=2000\nrequest.timeout.ms=1000\n");
        CliRun nowhere = runExactly("replay", "--bootstrap-servers", "127.0.0.1:1", "--db-url", env.database().jdbcUrl(),
                "--kafka-config", impatient.toString());
        assertThat(nowhere.exitCode()).isEqualTo(ReplayReport.CANNOT_VERIFY);
    }

    private static CliRun runReplay(String... args) {
        List<String> full = new ArrayList<>(List.of("replay", "--db-url", env.database().jdbcUrl()));
        full.addAll(List.of(args));
        return run(full.toArray(String[]::new));
    }

    @Test
    void noReplyWithinTheTimeoutIsExitCode14() {
        String silent = env.topics().commands() + ".unserved";
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(silent, 1, (short) 1))).all().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        CliRun run = runExactly("status", "x", "--timeout", "2", "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--command-topic", silent, "--reply-topic", env.topics().replies());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.TIMEOUT);
        assertThat(run.err()).contains("no reply to request").contains("is a worker running?");
    }

    @Test
    void anUnreachableBrokerIsOneLineAndExitCode1() {
        CliRun run = runExactly("status", "x", "--timeout", "2", "--bootstrap-servers", "127.0.0.1:1");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err().strip()).startsWith("lockstep: no answer from Kafka at 127.0.0.1:1").doesNotContain("\tat ");
    }

    @Test
    void topicsApplyCreatesExactlyTheTopicsItIsToldToName() throws Exception {
        String base = "named." + env.topics().commands();
        Set<String> before;
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            before = admin.listTopics().names().get();
        }
        CliRun applied = runExactly("topics", "apply", "--replication-factor", "1", "--bootstrap-servers",
                env.kafka().bootstrapServers(), "--command-topic", base + ".commands", "--reply-topic",
                base + ".replies.billing", "--dead-letter-topic", base + ".dlq", "--events-topic", base + ".events");
        assertThat(applied.exitCode()).as(applied.err()).isZero();
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            Set<String> created = new HashSet<>(admin.listTopics().names().get());
            created.removeAll(before);
            assertThat(created).containsExactlyInAnyOrder(base + ".commands", base + ".replies.billing", base + ".dlq",
                    base + ".events");
            ConfigResource commands = new ConfigResource(ConfigResource.Type.TOPIC, base + ".commands");
            assertThat(admin.describeConfigs(List.of(commands)).all().get().get(commands)
                    .get("message.timestamp.type").value()).isEqualTo("LogAppendTime");
        }
    }

    @Test
    void topicsApplyErrorsAreOneLineNamingTheFlag() {
        CliRun missingDir = runExactly("topics", "apply", "--dir", "/nonexistent/topics", "--bootstrap-servers",
                env.kafka().bootstrapServers());
        assertThat(missingDir.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(missingDir.err().strip()).isEqualTo("lockstep: --dir /nonexistent/topics is not a directory");
        CliRun unreachable = runExactly("topics", "apply", "--bootstrap-servers", "127.0.0.1:1");
        assertThat(unreachable.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(unreachable.err().strip().lines()).singleElement().asString()
                .startsWith("lockstep: cannot apply the topics at 127.0.0.1:1").contains("--bootstrap-servers");
    }

    @Test
    void aBusyPortIsOneLineNamingTheFlagBeforeAnythingStarts() throws Exception {
        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(busy.getLocalPort());
            Map<String, List<String>> byFlag = Map.of(
                    "--kafka-port", List.of("dev", "--kafka-port", port),
                    "--http-port", List.of("dev", "--kafka-port", "0", "--http-port", port));
            List<List<String>> alsoHttp = List.of(List.of("worker", "--http-port", port, "--http-host", "127.0.0.1"),
                    List.of("gateway", "--http-port", port, "--http-host", "127.0.0.1"));
            List<Map.Entry<String, List<String>>> cases = new ArrayList<>(byFlag.entrySet());
            alsoHttp.forEach(args -> cases.add(Map.entry("--http-port", args)));
            for (Map.Entry<String, List<String>> each : cases) {
                CliRun run = runExactly(each.getValue().toArray(String[]::new));
                assertThat(run.exitCode()).as(each.getValue().toString()).isEqualTo(ExitCodes.ERROR);
                assertThat(run.err().strip().lines()).as(each.getValue().toString()).singleElement().asString()
                        .contains(port + " is in use").endsWith("choose another " + each.getKey());
            }
        }
    }

    @Test
    void devSaysAnUnreachableOrWrongDatabaseInOneLineBeforeTheBrokerStarts() {
        for (String url : List.of("jdbc:postgresql://127.0.0.1:1/nowhere?user=postgres",
                env.database().jdbcUrl().replace(env.databaseName(), "no_such_database"))) {
            CliRun run = runExactly("dev", "--kafka-port", "0", "--http-port", "0", "--db-url", url);
            assertThat(run.exitCode()).as(url).isEqualTo(ExitCodes.ERROR);
            assertThat(run.err().strip().lines()).as(url).singleElement().asString()
                    .startsWith("lockstep: cannot connect to PostgreSQL at").endsWith("(check --db-url, --db-user, --db-password)");
            assertThat(run.out()).as("no broker was started").doesNotContain("Kafka broker running");
        }
    }

    @Test
    void topicsApplyCreatesWhatIsMissingAndReportsDrift() throws Exception {
        String prefix = "applied." + env.topics().commands();
        Path dir = Files.createTempDirectory("topics");
        Files.writeString(dir.resolve("a.properties"),
                "name=" + prefix + ".a\npartitions=2\nreplication.factor=1\nconfig.message.timestamp.type=LogAppendTime\n");
        CliRun created = runExactly("topics", "apply", "--dir", dir.toString(), "--bootstrap-servers",
                env.kafka().bootstrapServers());
        assertThat(created.exitCode()).isZero();
        assertThat(created.out()).contains(prefix + ".a: created");
        CliRun again = runExactly("topics", "apply", "--dir", dir.toString(), "--bootstrap-servers",
                env.kafka().bootstrapServers());
        assertThat(again.out()).contains(prefix + ".a: exists and matches");

        Files.writeString(dir.resolve("a.properties"),
                "name=" + prefix + ".a\npartitions=4\nreplication.factor=1\nconfig.message.timestamp.type=CreateTime\n");
        CliRun drift = runExactly("topics", "apply", "--dir", dir.toString(), "--bootstrap-servers",
                env.kafka().bootstrapServers());
        assertThat(drift.exitCode()).isEqualTo(ExitCodes.DRIFT);
        assertThat(drift.out()).contains("partitions 2 (declared 4)")
                .contains("message.timestamp.type=LogAppendTime (declared CreateTime)");
    }

    @Test
    void theWorkerRefusesToStartWithoutItsTopics() {
        CliRun run = runExactly("worker", "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--db-url", env.database().jdbcUrl(), "--command-topic", "nowhere.commands",
                "--reply-topic", env.topics().replies(), "--dead-letter-topic", env.topics().deadLetters(),
                "--events-topic", env.topics().events());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).contains("missing topics [nowhere.commands]")
                .contains("create them with: lockstep topics apply");
    }

    @Test
    void theWorkerRefusesACommandTopicWithoutLogAppendTime() throws Exception {
        String name = "createtime." + env.topics().commands();
        Path dir = Files.createTempDirectory("topics");
        Files.writeString(dir.resolve("c.properties"),
                "name=" + name + "\npartitions=1\nreplication.factor=1\nconfig.message.timestamp.type=CreateTime\n");
        assertThat(runExactly("topics", "apply", "--dir", dir.toString(), "--bootstrap-servers",
                env.kafka().bootstrapServers()).exitCode()).isZero();
        CliRun run = runExactly("worker", "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--db-url", env.database().jdbcUrl(), "--command-topic", name,
                "--reply-topic", env.topics().replies(), "--dead-letter-topic", env.topics().deadLetters(),
                "--events-topic", env.topics().events());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_LOG_APPEND_TIME);
        assertThat(run.err()).contains("message.timestamp.type=CreateTime").contains("needs LogAppendTime");
    }

    /** A dead-letter topic that could not take a dead letter cut to its smallest would stall every partition. */
    @Test
    void theWorkerRefusesATopicTooSmallForWhatItWritesThere() throws Exception {
        String name = "tiny." + env.topics().deadLetters();
        Path dir = Files.createTempDirectory("topics");
        Files.writeString(dir.resolve("d.properties"),
                "name=" + name + "\npartitions=1\nreplication.factor=1\nconfig.max.message.bytes=8192\n");
        assertThat(runExactly("topics", "apply", "--dir", dir.toString(), "--bootstrap-servers",
                env.kafka().bootstrapServers()).exitCode()).isZero();
        CliRun run = runExactly("worker", "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--db-url", env.database().jdbcUrl(), "--command-topic", env.topics().commands(),
                "--reply-topic", env.topics().replies(), "--dead-letter-topic", name,
                "--events-topic", env.topics().events());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(run.err()).contains(name + " has max.message.bytes=8192").contains("at least 16384");
    }
}
