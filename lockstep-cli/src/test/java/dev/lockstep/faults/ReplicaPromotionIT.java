package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.history.HistoryChecker;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's database fails over to an asynchronous streaming replica that had not received
 * the last batches the worker committed and answered: a second PostgreSQL server on this machine,
 * made with pg_basebackup, cut off from the primary, then promoted, and reached through the same
 * address (a proxy, as a virtual IP or a pooler would be). The worker must notice that the
 * database went back, apply the lost records again with the same replies, and grant nothing on
 * top of the lost state.
 */
@Tag("host-tools") // needs PostgreSQL's server binaries (initdb, pg_ctl, pg_basebackup)
class ReplicaPromotionIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();



    @Test
    void aPromotedReplicaThatLostCommittedBatchesIsBroughtForwardBeforeAnythingIsAppliedOnIt() throws Exception {
        List<ObjectNode> first = Waves.wave("w1", 60, "res-");
        List<ObjectNode> second = Waves.wave("w2", 60, "res-");
        List<ObjectNode> third = Waves.wave("w3", 60, "res-");
        DatabaseSettings database;
        try (PostgresServer primary = PostgresServer.primary()) {
            try (Connection admin = primary.connect("postgres"); Statement st = admin.createStatement()) {
                st.execute("CREATE DATABASE lockstep");
            }
            try (PostgresServer standby = PostgresServer.standbyOf(primary);
                    SwitchingProxy proxy = SwitchingProxy.to(primary.port());
                    Wire wire = new Wire(env.kafka(), env.topics())) {
                database = DatabaseSettings.of("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/lockstep?user=postgres");
                RunningWorker worker = env.startWorker(env.workerSettings(), database);
                Waves.run(wire, first);
                awaitReplayed(primary, standby);
                cutReplication(standby);
                Map<String, byte[]> firstTime = Waves.run(wire, second); // committed on the primary alone
                standby.promote();
                primary.crash();
                proxy.switchTo(standby.port());
                Waves.run(wire, third);
                for (ObjectNode command : second) {
                    String id = command.path("request_id").asText();
                    assertThat(wire.await(id, 2).get(1).value()).as("applied again: " + id)
                            .isEqualTo(firstTime.get(id));
                }
                worker.close();
                Set<String> sent = new HashSet<>();
                List.of(first, second, third).forEach(w -> w.forEach(c -> sent.add(c.path("request_id").asText())));
                HistoryChecker.Result result = HistoryChecker.check(Histories.read(env.kafka(), env.topics(), sent));
                result.assertSafe();
                assertThat(result.leasesGranted()).isGreaterThan(5);
                ReplayReport replay = new Replay(env.kafka(), database, env.topics()).run(Optional.empty(),
                        TimeWindow.ALL, (read, total) -> { });
                assertThat(replay.divergences()).as(replay.text()).isEmpty();
                assertThat(replay.unverifiable()).as(replay.text()).isEmpty();
            }
        }
    }

    /** Until the standby has replayed everything the primary wrote. */
    private static void awaitReplayed(PostgresServer primary, PostgresServer standby) throws SQLException {
        String written = text(primary, "SELECT pg_current_wal_lsn()::text");
        await().atMost(Duration.ofSeconds(60)).until(() -> text(standby,
                "SELECT (pg_last_wal_replay_lsn() >= '" + written + "'::pg_lsn)::int").equals("1"));
    }

    /** The standby stops receiving WAL: what the primary commits from now on, it never sees. */
    private static void cutReplication(PostgresServer standby) throws SQLException {
        try (Connection connection = standby.connect("postgres"); Statement st = connection.createStatement()) {
            st.execute("ALTER SYSTEM SET primary_conninfo = ''");
            st.execute("SELECT pg_reload_conf()");
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> text(standby,
                "SELECT count(*) FROM pg_stat_wal_receiver").equals("0"));
    }

    private static String text(PostgresServer server, String sql) throws SQLException {
        try (Connection connection = server.connect("postgres"); Statement st = connection.createStatement();
                ResultSet rows = st.executeQuery(sql)) {
            rows.next();
            return rows.getString(1);
        }
    }
}
