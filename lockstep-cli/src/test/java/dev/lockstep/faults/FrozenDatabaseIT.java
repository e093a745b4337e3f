package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Verdict;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every database session of a worker frozen (SIGSTOP on its PostgreSQL backends) under load:
 * a backend that stops answering, as a hung server or a half-open connection does, possibly while
 * it holds a partition's row. Within the bound, each partition answers again (its batch given up
 * on that connection and retried on a fresh one) or /health/live fails, saying so; never a worker
 * that waits forever while its health says it is fine. Thawed, everything is answered and the
 * history is clean.
 */
class FrozenDatabaseIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int STALL_SECONDS = 15;
    /** The stall timeout, and time for a probe's round trip and a health check. */
    private static final Duration BOUND = Duration.ofSeconds(STALL_SECONDS + 10);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void aWorkerWhoseBackendsFreezeAnswersAgainOrSaysItIsNotLiveWithinTheBound() throws Exception {
        int port = freePort();
        List<Long> frozen = new ArrayList<>();
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "the worker's database backends frozen (SIGSTOP)");
                ChildWorker worker = ChildWorker.start(env, env.topics(), "frozen-db", "frozen-db", FaultTimeouts.GROUP,
                        List.of("--http-port", Integer.toString(port), "--db-statement-timeout", "2",
                                "--db-lock-timeout", "2", "--db-idle-in-transaction-timeout", "5",
                                "--db-socket-timeout", "4", "--stall-timeout", Integer.toString(STALL_SECONDS)));
                LockClient client = LockClient.start(LockClientSettings.defaults(env.kafka()).withTopics(env.topics())
                        .withRequestTimeout(Duration.ofSeconds(120)))) {
            await().atMost(Duration.ofSeconds(60)).until(() -> live(port) == 200);
            run.load().awaitPublished(500);
            try {
                frozen.addAll(backends());
                assertThat(frozen).as("the worker's sessions").isNotEmpty();
                signal("STOP", frozen);
                run.faultInjected();
                long frozenAt = System.nanoTime();
                List<CompletableFuture<Verdict>> probes = Commands.onEachPartition("probe", LockstepExtension.PARTITIONS)
                        .stream().map(client::status).toList();
                boolean answered = false;
                int liveStatus = 200;
                while (System.nanoTime() - frozenAt < BOUND.toNanos()) {
                    answered = probes.stream().allMatch(CompletableFuture::isDone);
                    liveStatus = live(port);
                    if (answered || liveStatus == 503) {
                        break;
                    }
                    Thread.sleep(250);
                }
                long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
                System.out.printf("frozen database: after %d ms, every partition answered: %s; /health/live: %d%n",
                        took, answered, liveStatus);
                assertThat(answered || liveStatus == 503).as("within %s of the freeze, every partition answers again "
                        + "or /health/live fails (answered: %s, live: %d)", BOUND, answered, liveStatus).isTrue();
                if (liveStatus == 503) {
                    assertThat(liveBody(port)).contains("stall timeout");
                }
            } finally {
                signal("CONT", frozen);
            }
            await().atMost(Duration.ofSeconds(120)).until(() -> live(port) == 200);
            run.check();
        }
    }

    /** The worker's sessions, as pg_stat_activity names them. */
    private static List<Long> backends() throws Exception {
        List<Long> pids = new ArrayList<>();
        try (Connection admin = env.serverAdmin(); PreparedStatement query = admin.prepareStatement(
                "SELECT pid FROM pg_stat_activity WHERE application_name = ? AND datname = ?")) {
            query.setString(1, PostgresLockStore.APPLICATION_NAME);
            query.setString(2, env.databaseName());
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    pids.add(rows.getLong(1));
                }
            }
        }
        return pids;
    }

    private static void signal(String signal, List<Long> pids) throws IOException, InterruptedException {
        for (long pid : pids) {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
        }
    }

    private static int live(int port) throws IOException, InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return 0;
        }
    }

    private static String liveBody(int port) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/live"))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
