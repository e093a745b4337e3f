package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's own wall clock stepped or set wrong (libfaketime, Debian's {@code faketime}, preloaded
 * into the worker's JVM; its monotonic clock left alone): leases end in log time, and the worker
 * appends the tick that shows an end by the partition's log time as the records it saw tell it,
 * so a waiter is granted when the holder's lease ends, whatever the worker's clock says: off from
 * the start, stepped forward, stepped back. A worker whose clock disagrees with the broker's warns,
 * naming the partition's leader.
 */
class WorkerClockIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    private static final Duration TTL = Duration.ofSeconds(3);
    /** A tick comes within the ticker's 250 ms of an end; the rest is the records' way through. */
    private static final Duration LATE = Duration.ofMillis(1500);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void aWorkerClockOffAndSteppedHoldsNoWaiterBackAndIsToldNamingTheLeader() throws Exception {
        Path offset = Files.writeString(Files.createTempFile("worker-clock", ".faketime"), "-30s");
        TopicNames topics = env.topics().suffixed("-worker-clock");
        LockstepExtension.createTopics(env.kafka(), topics);
        int port = freePort();
        try (ChildWorker worker = startFaked(topics, "worker-clock", offset, port);
                Wire wire = new Wire(env.kafka(), topics)) {
            warmUp(wire);
            handOverAfterEnd(wire, "30 s behind the broker's from its start");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(get(port, "/health/ready"))
                    .contains(topics.commands() + "-", "s ahead of this worker's clock", "its leader is broker ",
                            "127.0.0.1:"));
            assertThat(get(port, "/metrics")).containsPattern(
                    "lockstep_log_time_outside_total\\{broker=\"\\d+ \\(127\\.0\\.0\\.1:\\d+\\)\",direction=\"ahead\"");
            Files.writeString(offset, "+30s");
            Thread.sleep(1_500); // libfaketime reads the file again each second
            handOverAfterEnd(wire, "stepped 60 s forward, to 30 s ahead");
            Files.writeString(offset, "+0");
            Thread.sleep(1_500);
            handOverAfterEnd(wire, "stepped 30 s back, to the right time");
        }
        assertReplayClean(topics);
    }

    /**
     * A holder acquires for {@link #TTL} and lets it end; a waiter queued behind it is granted by
     * the tick that shows the end: after the TTL from the holder's send (the broker's clock is
     * this machine's), and soon after.
     */
    private static void handOverAfterEnd(Wire wire, String workerClock) {
        String resource = "clocked-" + newId();
        long sent = System.nanoTime();
        JsonNode held = wire.call(acquire(newId(), resource, "holder", (int) TTL.toSeconds()));
        Duration answered = Duration.ofNanos(System.nanoTime() - sent);
        assertThat(held.path("outcome").asText()).isEqualTo("acquired");
        String waiter = newId();
        wire.send(acquire(waiter, resource, "waiter", 30).put("wait_ms", 60_000));
        JsonNode granted = Commands.parse(wire.await(waiter, 1).get(0).value());
        Duration waited = Duration.ofNanos(System.nanoTime() - sent);
        assertThat(granted.path("outcome").asText()).isEqualTo("acquired");
        System.out.printf("worker clock %s: the holder was answered after %.2f s, its waiter granted %.2f s after "
                + "the holder's send (TTL %d s)%n", workerClock, answered.toMillis() / 1000.0,
                waited.toMillis() / 1000.0, TTL.toSeconds());
        assertThat(waited).as("the waiter's grant, the worker's clock %s", workerClock).isGreaterThan(TTL)
                .isLessThan(TTL.plus(LATE));
    }

    /** A first call: the test's reply consumer joins its group and is positioned. */
    private static void warmUp(Wire wire) {
        assertThat(wire.call(Commands.status(newId(), "warm-up")).path("outcome").asText()).isNotEmpty();
    }

    private static ChildWorker startFaked(TopicNames topics, String name, Path offset, int port) {
        ChildWorker worker = ChildWorker.start(env, topics, name, name, Map.of(),
                List.of("--http-port", Integer.toString(port)), fakedClock(offset));
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> get(port, "/health/ready")
                .contains("\"status\":\"up\""));
        return worker;
    }

    /**
     * The environment that gives a JVM a wall clock off by what {@code offset} says ({@code +30s},
     * {@code -30s}; read again each second), its monotonic clock left alone.
     */
    static Map<String, String> fakedClock(Path offset) {
        assertThat(LIBFAKETIME).as("libfaketime: apt-get install faketime (.ci/run does)").exists();
        return Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME_TIMESTAMP_FILE", offset.toString(),
                "FAKETIME_CACHE_DURATION", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1",
                // Its monotonic "fix" makes the JVM's timed waits return at once or late.
                "FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }

    private static void assertReplayClean(TopicNames topics) {
        ReplayReport replay = new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
        assertThat(replay.unverifiable()).as(replay.text()).isEmpty();
    }

    private static String get(int port, String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
