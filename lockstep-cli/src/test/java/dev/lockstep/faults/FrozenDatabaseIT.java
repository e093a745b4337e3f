package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.store.PostgresLockStore;
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
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Collections;
import java.util.Map;
import java.util.HashSet;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker's PostgreSQL backends frozen (SIGSTOP) under load, with the worker's shipped
 * timeouts: one of them, then all of them. A frozen backend answers nothing, as a hung server
 * does, and one frozen inside a transaction holds that transaction's row locks, its partition's
 * among them, until it runs again: PostgreSQL cannot end a stopped process (its signals wait for
 * the thaw), so no timeout of the server's or the worker's frees that partition before. Every
 * other partition answers again within 10 s (the batch on a frozen connection is given up after
 * the socket timeout and retried on a fresh one), unless the frozen backend holds one of the
 * server's internal locks, which stalls every session (the test says so when it sees it); a
 * partition held by a frozen backend makes
 * {@code /health/live} and {@code /health/ready} fail within the same 10 s, naming it. Thawed,
 * everything is answered and the history is clean.
 */
@Tag("serial") // measures how soon callers are answered again
class FrozenDatabaseIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void oneFrozenBackend() throws Exception {
        freezeAndMeasure("one database backend frozen (SIGSTOP)", backends -> backends.subList(0, 1));
    }

    @Test
    void everyFrozenBackend() throws Exception {
        freezeAndMeasure("every database backend frozen (SIGSTOP)", backends -> backends);
    }

    private static void freezeAndMeasure(String fault, UnaryOperator<List<Long>> choose) throws Exception {
        int port = freePort();
        List<Long> frozen = new ArrayList<>();
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), fault);
                ChildWorker worker = ChildWorker.start(env, env.topics(), "frozen-db", "frozen-db", Map.of(),
                        List.of("--http-port", Integer.toString(port)));
                LockClient client = LockClient.start(LockClientSettings.defaults(env.kafka()).withTopics(env.topics())
                        .withRequestTimeout(Duration.ofSeconds(120)));
                RecoveryProbes probes = RecoveryProbes.start(client, "frozen", LockstepExtension.PARTITIONS)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> status(port, "live") == 200);
            run.load().awaitPublished(500);
            Set<Integer> stuck;
            long holding;
            Connection admin = null;
            try {
                List<Long> backends = backends();
                Collections.shuffle(backends);
                frozen.addAll(choose.apply(backends));
                // Opened before the freeze: a backend frozen holding one of the server's own locks
                // (a buffer's, the process array's) can keep any new connection from starting.
                admin = env.serverAdmin();
                // Not a query timeout: a cancel cannot end a wait on the server's internal locks.
                admin.setNetworkTimeout(Runnable::run, 5_000);
                assertThat(frozen).as("the worker's sessions").isNotEmpty();
                signal("STOP", frozen);
                probes.faultInjected();
                run.faultInjected();
                // What each was doing when it froze: a stopped backend no longer updates its entry.
                holding = inTransaction(admin, frozen);
                Thread.sleep(BOUND.plusSeconds(1).toMillis());
                Set<Integer> answered = probes.answeredSinceFault();
                stuck = IntStream.range(0, LockstepExtension.PARTITIONS).boxed().filter(p -> !answered.contains(p))
                        .collect(Collectors.toSet());
                int live = status(port, "live");
                int ready = status(port, "ready");
                List<String> stalled = serverStalls(admin, frozen);
                System.out.printf("%s: %d frozen, %d of them inside a transaction; after %s partitions %s answer "
                        + "again, %s do not; /health/live %d, /health/ready %d; the server stalled as a whole by: %s%n", fault, frozen.size(), holding,
                        BOUND.plusSeconds(1), answered, stuck, live, ready, stalled);
                if (stalled.isEmpty()) {
                    assertThat((long) stuck.size()).as("partitions still waiting %s after the freeze: each is held "
                            + "by a frozen backend inside a transaction", BOUND).isLessThanOrEqualTo(holding);
                }
                if (!stuck.isEmpty()) {
                    assertThat(live).as("/health/live with a partition held").isEqualTo(503);
                    assertThat(ready).as("/health/ready with a partition held").isEqualTo(503);
                    assertThat(body(port, "live")).contains("stall timeout");
                }
            } finally {
                signal("CONT", frozen);
                if (admin != null) {
                    admin.close();
                }
            }
            await().atMost(Duration.ofSeconds(120)).until(() -> status(port, "live") == 200);
            RecoveryProbes.Figures figures = probes.finish(Duration.ofSeconds(120));
            Duration others = figures.longestExcept(stuck);
            figures.report(fault, String.format(" partitions held until the thaw: %d; the others' "
                    + "longest wait: %.1f s |", stuck.size(), others.toMillis() / 1000.0));
            assertThat(others).as("the longest wait on the partitions no frozen backend held").isLessThan(BOUND);
            run.check();
        }
    }

    /**
     * How many of {@code pids} are inside a transaction, and so may hold a partition's row; all of
     * them when the server cannot say within seconds (a frozen backend may hold what it needs).
     */
    private static long inTransaction(Connection admin, List<Long> pids) {
        try (PreparedStatement query = admin.prepareStatement(
                "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY (?) AND state <> 'idle'")) {
            query.setQueryTimeout(3);
            query.setArray(1, admin.createArrayOf("int8", pids.toArray()));
            try (ResultSet rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        } catch (SQLException e) {
            System.out.println("the server did not say what the frozen backends were doing: " + e.getMessage());
            return pids.size();
        }
    }

    /**
     * Why the whole server is stalled, if it is: a frozen backend holding a table's extension lock
     * (every insert that needs a new page of that table waits for it), or a session of the
     * worker's waiting on one of the server's internal locks (an LWLock: a buffer's, the WAL's,
     * the process array's) in two looks a second apart, in a statement running longer than the
     * worker's 2 s statement timeout allows: only a frozen holder keeps a wait that long, and no
     * timeout cancels it. One entry saying so when the server does not answer within 5 s.
     */
    private static List<String> serverStalls(Connection admin, List<Long> frozen) {
        List<String> stalls = new ArrayList<>();
        try (PreparedStatement extending = admin.prepareStatement("SELECT pid, relation::regclass::text FROM pg_locks "
                        + "WHERE pid = ANY (?) AND granted AND locktype = 'extend'");
                PreparedStatement waiting = admin.prepareStatement("SELECT pid, wait_event FROM pg_stat_activity "
                        + "WHERE application_name = ? AND datname = ? AND pid <> ALL (?) "
                        + "AND wait_event_type = 'LWLock' AND state = 'active' "
                        + "AND query_start < now() - interval '5 seconds'")) {
            extending.setArray(1, admin.createArrayOf("int8", frozen.toArray()));
            try (ResultSet rows = extending.executeQuery()) {
                while (rows.next()) {
                    stalls.add("frozen " + rows.getLong(1) + " holds the extension lock of " + rows.getString(2));
                }
            }
            waiting.setString(1, PostgresLockStore.APPLICATION_NAME);
            waiting.setString(2, env.databaseName());
            waiting.setArray(3, admin.createArrayOf("int8", frozen.toArray()));
            Set<String> first = lwLockWaits(waiting);
            Thread.sleep(1_000);
            first.retainAll(lwLockWaits(waiting));
            first.forEach(wait -> stalls.add(wait + " (LWLock)"));
        } catch (SQLException e) {
            stalls.add("the server did not answer: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return stalls;
    }

    private static Set<String> lwLockWaits(PreparedStatement waiting) throws SQLException {
        Set<String> waits = new HashSet<>();
        try (ResultSet rows = waiting.executeQuery()) {
            while (rows.next()) {
                waits.add(rows.getLong(1) + " waits on " + rows.getString(2));
            }
        }
        return waits;
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

    private static int status(int port, String check) throws IOException, InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/" + check))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException notYet) {
            return 0;
        }
    }

    private static String body(int port, String check) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health/" + check))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
