package dev.lockstep.http;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static dev.lockstep.testkit.Commands.status;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.protocol.TopicNames;
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
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code lockstep worker --http-port}, run as a user runs it: /metrics parsed by the Prometheus
 * project's own text parser after a known workload (counters as expected, no resource, owner or
 * request ID in any label), and the health endpoints: ready once the partitions are assigned (a
 * worker with none stands by, 503, until it takes one over), 503 while the database refuses
 * connections, ready again when it is back, live throughout.
 */
class OperationsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    /** Python's json writes a gauge that has no value as NaN. */
    private static final ObjectMapper JSON = JsonMapper.builder().enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS).build();
    private static Process worker;
    private static int port;

    @BeforeAll
    static void startWorker() throws IOException {
        port = freePort();
        worker = startWorker(env.topics(), "operations", port, "worker");
        Awaitility.await("the worker's /health/ready").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .ignoreExceptions().until(() -> get(port, "/health/ready").statusCode() == 200);
    }

    private static int freePort() throws IOException {
        try (ServerSocket free = new ServerSocket(0)) {
            return free.getLocalPort();
        }
    }

    private static Process startWorker(TopicNames topics, String group, int httpPort, String name) throws IOException {
        List<String> args = LockstepProcess.workerArgs(env, topics, group);
        args.addAll(List.of("--http-port", Integer.toString(httpPort), "--http-host", "127.0.0.1"));
        Path stderr = Files.createDirectories(Path.of("target", "operations")).resolve(name + ".stderr");
        Files.deleteIfExists(stderr);
        return LockstepProcess.start(stderr.toFile(), args.toArray(String[]::new));
    }

    @AfterAll
    static void stopWorker() throws InterruptedException {
        stop(worker);
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(port, path);
    }

    private static HttpResponse<String> get(int httpPort, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aWorkerIsReadyOnlyWhileItHasPartitions() throws Exception {
        TopicNames single = env.topics().suffixed("-single");
        LockstepExtension.createTopics(env.kafka(), single, 1);
        int[] ports = {freePort(), freePort()};
        Process first = startWorker(single, "standby", ports[0], "standby-0");
        Process second = startWorker(single, "standby", ports[1], "standby-1");
        try {
            // Both polling (live) first: a worker's HTTP server answers before its first poll, and until
            // then it is neither live nor ready, which is not what this test is about.
            Awaitility.await("both live, one ready and one standing by").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(300)).ignoreExceptions().until(() ->
                            get(ports[0], "/health/live").statusCode() == 200
                                    && get(ports[1], "/health/live").statusCode() == 200
                                    && get(ports[0], "/health/ready").statusCode()
                                            + get(ports[1], "/health/ready").statusCode() == 200 + 503);
            int standby = get(ports[0], "/health/ready").statusCode() == 503 ? 0 : 1;
            HttpResponse<String> waiting = get(ports[standby], "/health/ready");
            assertThat(JSON.readTree(waiting.body()).path("problems").toString()).as("the standby's only reason")
                    .isEqualTo("[\"no partition of the command topic is assigned to this worker\"]");

            stop(standby == 0 ? second : first);
            Awaitility.await("the standby takes the partition over").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(300)).ignoreExceptions()
                    .until(() -> get(ports[standby], "/health/ready").statusCode() == 200);
        } finally {
            stop(first);
            stop(second);
        }
    }

    /** Every sample of /metrics, as the Prometheus parser read it. */
    private static List<JsonNode> scrape() throws IOException, InterruptedException {
        HttpResponse<String> metrics = get("/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("text/plain").contains("version=0.0.4"));
        Path script = Path.of("src", "test", "resources", "prometheus", "parse.py");
        Process parser = new ProcessBuilder("/usr/bin/python3", script.toString()).start();
        parser.getOutputStream().write(metrics.body().getBytes(StandardCharsets.UTF_8));
        parser.getOutputStream().close();
        String parsed = new String(parser.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String errors = new String(parser.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(parser.waitFor()).as("the Prometheus parser (needs Debian's python3-prometheus-client; "
                + ".ci/run installs it): " + errors).isZero();
        List<JsonNode> samples = new ArrayList<>();
        JSON.readTree(parsed).forEach(samples::add);
        return samples;
    }

    private static double value(List<JsonNode> samples, String name, String... labels) {
        return samples.stream().filter(s -> s.path("name").asText().equals(name)).filter(s -> {
            for (int i = 0; i < labels.length; i += 2) {
                if (!s.path("labels").path(labels[i]).asText().equals(labels[i + 1])) {
                    return false;
                }
            }
            return true;
        }).mapToDouble(s -> s.path("value").asDouble()).sum();
    }

    @Tag("host-tools") // needs the Prometheus project's parser (python3-prometheus-client)
    @Test
    void metricsCountAKnownWorkloadWithoutResourceLabels() throws Exception {
        List<JsonNode> before = scrape();
        String resource = "ops-resource-" + newId();
        String owner = "ops-owner-" + newId();
        ObjectNode first = acquire(newId(), resource, owner, 30);
        assertThat(env.call(first).path("outcome").asText()).isEqualTo("acquired");
        assertThat(env.call(first).path("outcome").asText()).as("a retry").isEqualTo("acquired");
        assertThat(env.call(acquire(newId(), resource, "someone-else", 30)).path("outcome").asText())
                .isEqualTo("not_acquired");
        assertThat(env.call(release(newId(), resource, owner)).path("outcome").asText()).isEqualTo("released");
        assertThat(env.call(status(newId(), resource)).path("outcome").asText()).isEqualTo("not_found");
        assertThat(env.call(acquire(newId(), resource, owner, 0)).path("outcome").asText()).isEqualTo("invalid");
        env.send(resource, "not json");

        Awaitility.await("the counters").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<JsonNode> after = scrape();
            assertThat(delta(before, after, "lockstep_commands_total", "type", "acquire", "outcome", "acquired")).isEqualTo(1);
            assertThat(delta(before, after, "lockstep_commands_total", "type", "acquire", "outcome", "not_acquired"))
                    .isEqualTo(1);
            assertThat(delta(before, after, "lockstep_commands_total", "type", "release", "outcome", "released")).isEqualTo(1);
            assertThat(delta(before, after, "lockstep_commands_total", "type", "status", "outcome", "not_found")).isEqualTo(1);
            assertThat(delta(before, after, "lockstep_commands_total", "type", "acquire", "outcome", "invalid")).isEqualTo(1);
            assertThat(delta(before, after, "lockstep_duplicate_requests_total", "type", "acquire")).isEqualTo(1);
            assertThat(delta(before, after, "lockstep_dead_letters_total", "reason", "unreadable")).isEqualTo(1);
            assertThat(delta(before, after, "lockstep_command_duration_seconds_count")).as("six replies").isEqualTo(6);
            assertThat(delta(before, after, "lockstep_batch_size_count")).isPositive();
            assertThat(value(after, "lockstep_db_transaction_duration_seconds_count")).isPositive();
            assertThat(delta(before, after, "lockstep_command_fetch_delay_seconds_count")).as("each record fetched")
                    .isGreaterThanOrEqualTo(7);
            for (String stage : List.of("batch_queue", "batch_decode", "reply_acknowledge")) {
                assertThat(delta(before, after, "lockstep_" + stage + "_duration_seconds_count")).as(stage).isPositive();
            }
        });
        // A leader that resigns with nobody after it, and a semaphore's permit held.
        assertThat(env.call(acquire(newId(), resource + "-group", owner, 30).put("value", "10.0.0.7:8080"))
                .path("outcome").asText()).isEqualTo("acquired");
        assertThat(env.call(release(newId(), resource + "-group", owner)).path("outcome").asText()).isEqualTo("released");
        assertThat(env.call(acquire(newId(), resource + "-pool", owner, 30).put("limit", 2)).path("lock").path("permit")
                .asInt()).isZero();
        Awaitility.await("the vacancy and the permit").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<JsonNode> now = scrape();
            assertThat(delta(before, now, "lockstep_vacancies_total")).isEqualTo(1);
            assertThat(value(now, "lockstep_shared_held")).isEqualTo(1);
        });
        List<JsonNode> after = scrape();
        assertThat(after).as("series of lockstep's own families").anyMatch(s -> s.path("name").asText()
                .equals("lockstep_locks_held"));
        assertThat(after.stream().filter(s -> s.path("name").asText().equals("lockstep_consumer_lag"))
                .map(s -> s.path("labels").path("partition").asText()).toList()).as("the consumer's lag per partition")
                .containsExactlyInAnyOrder("0", "1", "2");
        assertThat(after).as("the Kafka clients' own metrics").anyMatch(s -> s.path("name").asText()
                .startsWith("kafka_consumer_fetch_manager_records_lag_max"));
        assertThat(after).as("the connection pool").anyMatch(s -> s.path("name").asText().startsWith("hikaricp_connections"));
        assertThat(value(after, "lockstep_seconds_since_last_poll")).isBetween(0.0, 60.0);
        for (JsonNode sample : after) {
            assertThat(sample.path("labels").has("resource") || sample.path("labels").has("owner")
                    || sample.path("labels").has("request_id")).as(sample.toString()).isFalse();
            sample.path("labels").forEach(label -> assertThat(label.asText()).as(sample.toString())
                    .doesNotContain(resource).doesNotContain(owner));
        }
    }

    private static double delta(List<JsonNode> before, List<JsonNode> after, String name, String... labels) {
        return value(after, name, labels) - value(before, name, labels);
    }

    @Test
    void readinessFollowsTheDatabaseWhileLivenessHolds() throws Exception {
        assertThat(get("/health/live").statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(get("/health/ready").body()).path("status").asText()).isEqualTo("up");
        try (Connection admin = env.serverAdmin(); Statement sql = admin.createStatement()) {
            sql.execute("ALTER DATABASE \"" + env.databaseName() + "\" WITH ALLOW_CONNECTIONS false");
            try {
                sql.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                        + env.databaseName() + "' AND pid <> pg_backend_pid()");
                Awaitility.await("ready answers 503").atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    HttpResponse<String> ready = get("/health/ready");
                    assertThat(ready.statusCode()).isEqualTo(503);
                    JsonNode body = JSON.readTree(ready.body());
                    assertThat(body.path("status").asText()).isEqualTo("down");
                    assertThat(body.path("problems").toString()).contains("the database does not answer");
                });
                assertThat(get("/health/live").statusCode()).as("the poll loop goes on").isEqualTo(200);
            } finally {
                sql.execute("ALTER DATABASE \"" + env.databaseName() + "\" WITH ALLOW_CONNECTIONS true");
            }
        }
        Awaitility.await("ready again").atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> get("/health/ready").statusCode() == 200);
    }
}
