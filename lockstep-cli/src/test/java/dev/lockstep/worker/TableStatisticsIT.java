package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.engine.Inbound;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hot tables get planner statistics from the worker, without waiting for autovacuum, when
 * they filled (new, or emptied) and whenever they have doubled: the generic plans PostgreSQL
 * caches are made again for the tables as they are. One made for an empty table read the whole
 * request log for every batch.
 */
class TableStatisticsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void filledTablesAreAnalyzedWithoutWaitingForAutovacuum() throws Exception {
        try (LockStore store = PostgresLockStore.open(env.database())) {
            PartitionId partition = new PartitionId("stats", 0);
            BatchProcessor processor = started(store, partition);
            Instant start = Instant.parse("2026-12-04T00:00:00Z");
            List<Inbound> batch = new ArrayList<>();
            IntStream.range(0, 1_500).forEach(i -> batch.add(Batches.record("stats", i, "r-" + i,
                    "{\"request_id\":\"q" + i + "\",\"type\":\"acquire\",\"resource\":\"r-" + i
                            + "\",\"owner\":\"o\",\"ttl_seconds\":60}", start.plusMillis(i))));
            for (int from = 0; from < batch.size(); from += 100) {
                processor.process(partition, batch.subList(from, from + 100));
            }
            assertThat(analyzed("request_log")).as("a fresh table, before any sweep").isFalse();

            // The statistics collector reports changes within a second or so.
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(store::refreshTableStatistics);
            assertThat(List.of("request_log", "distributed_locks", "lease_events")).allSatisfy(
                    table -> assertThat(analyzed(table)).as(table).isTrue());
        }
    }

    @Test
    void aTableThatOutgrowsItsStatisticsOrIsEmptiedAndFilledIsAnalyzedAgain() throws Exception {
        try (LockStore store = PostgresLockStore.open(env.database())) {
            PartitionId partition = new PartitionId("grown", 0);
            BatchProcessor processor = started(store, partition);
            Instant start = Instant.parse("2026-12-06T00:00:00Z");
            int[] next = {0};
            Runnable thousand = () -> {
                List<Inbound> batch = new ArrayList<>();
                for (int i = 0; i < 1_000; i++, next[0]++) {
                    batch.add(Batches.record("grown", next[0], "g-" + next[0], "{\"request_id\":\"g" + next[0]
                            + "\",\"type\":\"status\",\"resource\":\"g-" + next[0] + "\"}", start.plusMillis(next[0])));
                }
                processor.process(partition, batch);
            };
            thousand.run();
            thousand.run();
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> store.refreshTableStatistics() && rowsPlannedFor("request_log") > 0);
            double planned = rowsPlannedFor("request_log");

            // Twice the rows: the statistics have fallen behind, and are taken again.
            for (int i = 0; i < 3; i++) {
                thousand.run();
            }
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> store.refreshTableStatistics() && rowsPlannedFor("request_log") > planned);
            assertThat(rowsPlannedFor("request_log")).isGreaterThanOrEqualTo(4_000);

            // Emptied (a restore, a test's reset), then filled: no statistics until taken again.
            execute("TRUNCATE request_log");
            assertThat(rowsPlannedFor("request_log")).isNegative();
            thousand.run();
            thousand.run();
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(() -> store.refreshTableStatistics() && rowsPlannedFor("request_log") >= 0);
            assertThat(rowsPlannedFor("request_log")).isGreaterThanOrEqualTo(1_000);
        }
    }

    /** A processor of batches for {@code partition}, started as a worker starts it. */
    private static BatchProcessor started(LockStore store, PartitionId partition) {
        Batches.start(store, partition);
        return Batches.processor(store);
    }

    /** The rows the planner takes the table to have, by its statistics: -1 when it has none. */
    private static double rowsPlannedFor(String table) throws SQLException {
        try (Connection connection = DriverManager.getConnection(env.database().jdbcUrl());
                PreparedStatement select = connection.prepareStatement(
                        "SELECT reltuples FROM pg_class WHERE relname = ? AND relkind = 'r'")) {
            select.setString(1, table);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getDouble(1) : Double.NaN;
            }
        }
    }

    private static void execute(String sql) throws SQLException {
        try (Connection connection = DriverManager.getConnection(env.database().jdbcUrl());
                Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static boolean analyzed(String table) throws SQLException {
        try (Connection connection = DriverManager.getConnection(env.database().jdbcUrl());
                PreparedStatement select = connection.prepareStatement("SELECT last_analyze IS NOT NULL "
                        + "OR last_autoanalyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = ?")) {
            select.setString(1, table);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
