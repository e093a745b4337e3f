package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.engine.Timekeeping;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The command topic's retention deletes records a stopped worker never applied, by the broker's
 * own mechanism (a short {@code retention.ms}, a rolled segment, the broker's retention check).
 * Started again, the worker applies from the first record still there, quarantines the partition
 * and says so where an operator looks: its log, {@code /metrics}, {@code /health/ready}, and
 * {@code lockstep replay} (exit 2: cannot verify). The lost records may have granted a lease, so
 * nothing is granted there until the longest TTL has passed in log time; then it is, as usual.
 */
class RetentionIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The worker's --max-ttl: how long the quarantine lasts after the first record still there. */
    private static final int MAX_TTL_SECONDS = 5;

    @Test
    void recordsDeletedBeforeAStoppedWorkerAppliedThemQuarantineTheirPartitionAndSaySo() throws Exception {
        String resource = onPartitionZero("kept");
        String lostResource = onPartitionZero("lost");
        TopicPartition zero = new TopicPartition(env.topics().commands(), 0);
        try (Wire wire = new Wire(env.kafka(), env.topics()); Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            int port = freePort();
            try (ChildWorker worker = worker("retention-first", port)) {
                awaitReady(port);
                JsonNode granted = wire.call(acquire(newId(), resource, "early", MAX_TTL_SECONDS));
                assertThat(granted.path("outcome").asText()).isEqualTo("acquired");
                // Released, so that no lease ends unseen: the next worker's ticker would append a tick for
                // it, and a tick later than the quarantine's end ends it before the checks below look.
                JsonNode released = wire.call(release(newId(), resource, "early"));
                assertThat(released.path("outcome").asText()).isEqualTo("released");
            }
            // Published while no worker runs, and deleted before one does: a grant nobody will ever read.
            long lostFrom = endOffset(admin, zero);
            for (int i = 0; i < 3; i++) {
                wire.send(acquire(newId(), i == 0 ? lostResource : onPartitionZero("lost" + i), "ghost", MAX_TTL_SECONDS));
            }
            long firstKept = deleteByRetention(admin, zero);
            assertThat(firstKept - lostFrom).as("records deleted before any worker applied them").isEqualTo(3);
            String firstKeptId = newId();
            wire.send(acquire(firstKeptId, lostResource, "newcomer", MAX_TTL_SECONDS));

            int secondPort = freePort();
            try (ChildWorker worker = worker("retention-second", secondPort)) {
                JsonNode refused = Commands.parse(wire.await(firstKeptId, 1).get(0).value());
                assertThat(refused.path("outcome").asText()).as("the lost records may have granted it").isEqualTo(
                        "not_acquired");
                assertThat(refused.path("retry_after_ms").asLong()).isBetween(1L, MAX_TTL_SECONDS * 1000L
                        + Timekeeping.DEFAULT_SLACK.toMillis()); // what the lost records granted, dated late

                String range = lostFrom + ".." + (firstKept - 1);
                assertThat(worker.log()).as("the worker's log").containsPattern("WARN .*" + zero + ": records "
                        + range + " are gone from the log and were never applied");
                String metrics = get(secondPort, "/metrics").body();
                assertThat(metrics).contains("lockstep_records_lost_total 3.0");
                assertThat(metrics).contains("lockstep_partitions_quarantined 1.0");
                HttpResponse<String> ready = get(secondPort, "/health/ready");
                assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
                assertThat(JSON.readTree(ready.body()).path("warnings").toString()).contains(zero + " is quarantined: "
                        + "records " + range + " were gone from the log before they were applied");

                Path said = Path.of("target", "faults", "retention-replay.out"); // beside the workers' logs
                Process replay = LockstepProcess.startWithOutput(said.toFile(),
                        said.resolveSibling("retention-replay.stderr").toFile(), replayArgs());
                assertThat(replay.waitFor(120, TimeUnit.SECONDS)).as("replay finished").isTrue();
                assertThat(replay.exitValue()).as("lockstep replay: records it cannot verify").isEqualTo(2);
                assertThat(Files.readString(said)).contains(zero + ": records 0.." + (firstKept - 1)
                        + " are gone from the log, and no checkpoint covers them");

                // The quarantine ends with the longest TTL after the first record still there, in log time.
                TimeUnit.MILLISECONDS.sleep(refused.path("retry_after_ms").asLong() + 200);
                JsonNode after = wire.call(acquire(newId(), lostResource, "newcomer", MAX_TTL_SECONDS));
                assertThat(after.path("outcome").asText()).as(after.toString()).isIn("acquired", "taken_over");
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(secondPort, "/metrics").body())
                        .contains("lockstep_partitions_quarantined 0.0"));
                assertThat(JSON.readTree(get(secondPort, "/health/ready").body()).has("warnings")).isFalse();
            }
        }
    }

    /**
     * Has the broker delete every record of {@code tp}: retention shortened, the broker's
     * retention check waited for (past its retention, even the active segment is rolled and
     * deleted), and the topic's retention restored.
     *
     * @return the first offset still in the log: the next record's
     */
    private static long deleteByRetention(Admin admin, TopicPartition tp) throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, tp.topic());
        long end = endOffset(admin, tp);
        alter(admin, topic, new AlterConfigOp(new ConfigEntry("retention.ms", "100"), AlterConfigOp.OpType.SET));
        await("the broker's retention check").atMost(Duration.ofSeconds(60)).until(() -> startOffset(admin, tp) == end);
        alter(admin, topic, new AlterConfigOp(new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE));
        return end;
    }

    private static void alter(Admin admin, ConfigResource topic, AlterConfigOp op)
            throws InterruptedException, ExecutionException {
        admin.incrementalAlterConfigs(Map.of(topic, List.of(op))).all().get();
    }

    private static long endOffset(Admin admin, TopicPartition tp) throws InterruptedException, ExecutionException {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get().offset();
    }

    private static long startOffset(Admin admin, TopicPartition tp) throws InterruptedException, ExecutionException {
        return admin.listOffsets(Map.of(tp, OffsetSpec.earliest())).partitionResult(tp).get().offset();
    }

    private static String onPartitionZero(String prefix) {
        int i = 0;
        while (ResourcePartition.of((prefix + "-" + i).getBytes(StandardCharsets.UTF_8),
                LockstepExtension.PARTITIONS) != 0) {
            i++;
        }
        return prefix + "-" + i;
    }

    private static ChildWorker worker(String name, int httpPort) {
        return ChildWorker.start(env, env.topics(), name, "retention", Map.of(), List.of("--max-ttl",
                Integer.toString(MAX_TTL_SECONDS), "--http-port", Integer.toString(httpPort), "--http-host", "127.0.0.1"));
    }

    private static String[] replayArgs() {
        return new String[] {"replay", "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--db-url", env.database().jdbcUrl(), "--command-topic", env.topics().commands(),
                "--reply-topic", env.topics().replies(), "--dead-letter-topic", env.topics().deadLetters(),
                "--events-topic", env.topics().events()};
    }

    private static void awaitReady(int port) {
        await("the worker's /health/ready").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> get(port, "/health/ready").statusCode() == 200);
    }

    private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }
}
