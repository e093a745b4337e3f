package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClientSettings;
import dev.lockstep.client.LockClient;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's PostgreSQL primary killed under load (an immediate stop: no checkpoint, clients cut
 * off) and its streaming standby promoted, the worker reaching both through one multi-host JDBC
 * URL with {@code targetServerType=primary}, as docs/operations.md tells an operator to configure
 * it: the worker's connections fail, new ones skip the dead host and the standby until it is
 * promoted, and it goes on from where the new primary stands.
 *
 * <p>With a synchronous standby every commit the worker was told of is on the standby, so nothing
 * is applied twice (runs in CI). With an asynchronous one the last commits may be lost; the worker
 * notices the database went back and applies those records again with the same replies (a short,
 * deterministic version is {@link ReplicaPromotionIT}; this one, under load, is tagged
 * {@code cluster}). Either way the history checker and the replay find nothing wrong.
 */
@Tag("host-tools") // needs PostgreSQL's server binaries (initdb, pg_ctl, pg_basebackup)
class StandbyFailoverIT {

    /** The recovery goal: the promotion itself (pg_ctl promote waits for it) takes about a second here. */
    private static final Duration BOUND = Duration.ofSeconds(10);

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aSynchronousStandbyPromotedUnderLoadLosesNothing() throws Exception {
        failOverUnderLoad(true, "primary killed, synchronous standby promoted (multi-host JDBC URL)", "sync");
    }

    @Test
    @Tag("cluster")
    void anAsynchronousStandbyPromotedUnderLoadIsBroughtForwardFromTheLog() throws Exception {
        failOverUnderLoad(false, "primary killed, asynchronous standby promoted (multi-host JDBC URL)", "async");
    }

    private static void failOverUnderLoad(boolean synchronous, String fault, String name) throws Exception {
        TopicNames topics = env.topics().suffixed("-" + name);
        LockstepExtension.createTopics(env.kafka(), topics);
        try (PostgresServer primary = PostgresServer.primary()) {
            try (Connection admin = primary.connect("postgres"); Statement st = admin.createStatement()) {
                st.execute("CREATE DATABASE lockstep");
            }
            try (PostgresServer standby = PostgresServer.standbyOf(primary)) {
                if (synchronous) {
                    primary.replicateSynchronously();
                }
                await("the standby streaming " + (synchronous ? "synchronously" : "asynchronously"))
                        .atMost(Duration.ofSeconds(60)).until(() -> syncState(primary).equals(synchronous ? "sync" : "async"));
                DatabaseSettings database = DatabaseSettings.of("jdbc:postgresql://127.0.0.1:" + primary.port()
                        + ",127.0.0.1:" + standby.port() + "/lockstep?user=postgres&targetServerType=primary");
                WorkerSettings settings = WorkerSettings.defaults(env.kafka())
                        .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("standby-" + name);
                try (RunningWorker worker = env.startWorker(settings, database);
                        FaultRun run = FaultRun.start(database, env.kafka(), topics, fault);
                        LockClient client = LockClient.start(LockClientSettings.defaults(env.kafka())
                                .withTopics(topics).withRequestTimeout(Duration.ofSeconds(90)));
                        RecoveryProbes probes = RecoveryProbes.start(client, "standby-" + name,
                                LockstepExtension.PARTITIONS)) {
                    run.load().awaitPublished(600);
                    // Killed once the worker applies at full speed, not while it is still starting.
                    await("the worker applying the load").atMost(Duration.ofSeconds(60))
                            .until(() -> applied(primary, topics) >= 500);
                    primary.crash();
                    probes.faultInjected();
                    standby.promote();
                    run.faultInjected();
                    run.load().awaitPublished(1_000);
                    Thread.sleep(BOUND.toMillis());
                    RecoveryProbes.Figures figures = probes.finish(Duration.ofSeconds(90));
                    figures.report(fault, "");
                    assertThat(figures.longest()).as("the longest wait of %d requests", figures.requests())
                            .isLessThan(BOUND);
                    run.check();
                }
            }
        }
    }

    /** Command records applied on the server, over every partition of the topics' command topic. */
    private static long applied(PostgresServer server, TopicNames topics) throws SQLException {
        try (Connection connection = server.connect("lockstep"); PreparedStatement select = connection.prepareStatement(
                "SELECT coalesce(sum(next_offset), 0) FROM partition_progress WHERE topic = ?")) {
            select.setString(1, topics.commands());
            try (ResultSet rows = select.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }

    /** How the primary's one standby streams: {@code sync}, {@code async}, or empty while none does. */
    private static String syncState(PostgresServer primary) throws SQLException {
        try (Connection connection = primary.connect("postgres"); Statement st = connection.createStatement();
                ResultSet rows = st.executeQuery("SELECT sync_state FROM pg_stat_replication")) {
            return rows.next() ? rows.getString(1) : "";
        }
    }
}
