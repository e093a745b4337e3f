package dev.lockstep.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The plans of the store's own statements (not copies of them). A batch's request IDs are found
 * by probing the primary key of a table of some size, before any statistics, and for a partition
 * that had no entries when they were taken. With the IDs as {@code request_id = ANY(?)} beside
 * {@code topic = ? AND partition = ?}, PostgreSQL read all of such a partition's entries through
 * {@code (topic, partition)} and filtered them (found in {@code bench --peers}, whose single
 * caller fills one partition before the sixteen fill the rest). A plan made while the table was
 * small reads it all; the worker keeps the statistics in step so that cached plans are made again
 * as it grows (TableStatisticsIT). The sweeper walks each partition's index range, oldest first,
 * instead of scanning whole tables.
 */
class StorePlansIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final String TOPIC = "plans";

    @Test
    void requestIdsAreProbesOfTheKeyWithoutStatisticsAndForPartitionsTheyHaveNotSeen() throws SQLException {
        try (LockStore store = PostgresLockStore.open(env.database()); Connection connection = env.jdbc()) {
            fill(connection, 0, 2_000);
            assertLookedUpByKey(connection, 0);

            try (Statement analyze = connection.createStatement()) {
                analyze.execute("ANALYZE request_log");
            }
            fill(connection, 1, 2_000);
            assertLookedUpByKey(connection, 0);
            assertLookedUpByKey(connection, 1);
            assertLookedUpByKey(connection, 2);
        }
    }

    @Test
    void theSweeperWalksEachPartitionsIndexOldestFirst() throws SQLException {
        try (LockStore store = PostgresLockStore.open(env.database()); Connection connection = env.jdbc()) {
            fill(connection, 4, 20_000);
            update(connection, "INSERT INTO distributed_locks (resource, owner, fencing_token, acquired_at, expires_at, "
                    + "topic, partition) SELECT 'plans-' || i, 'o', i + 1, timestamptz '2026-12-04 00:00:00+00', "
                    + "timestamptz '2026-12-04 00:00:00+00' + i * interval '1 ms', ?, 4 FROM generate_series(0, 19999) AS i");
            update(connection, "INSERT INTO lease_events (topic, partition, record_offset, event_index, resource, event) "
                    + "SELECT ?, 4, i, 0, 'plans-' || i, '{}' FROM generate_series(0, 19999) AS i");
            update(connection, "INSERT INTO partition_progress (topic, partition, next_offset, last_now, acked_offset) "
                    + "VALUES (?, 4, 20000, timestamptz '2026-12-05 00:00:00+00', 10000)");
            try (Statement analyze = connection.createStatement()) {
                analyze.execute("ANALYZE");
            }
            // The scans that find the rows (aliases q, l, v); how the DELETE then reaches them is the
            // planner's choice by table size (a hash over a small table, the key for a large one).
            assertThat(sweepPlan(connection, PostgresLockStore.SWEEP_REQUESTS))
                    .anyMatch(line -> line.contains("Index Scan using request_log_partition_applied_at on request_log q"))
                    .noneMatch(line -> line.contains("Seq Scan on request_log q"));
            assertThat(sweepPlan(connection, PostgresLockStore.SWEEP_LEASES))
                    .anyMatch(line -> line.contains("Index Scan using distributed_locks_partition_expires_at on distributed_locks l"))
                    .noneMatch(line -> line.contains("Seq Scan on distributed_locks l"));
            assertThat(sweepPlan(connection, PostgresLockStore.SWEEP_EVENTS))
                    .anyMatch(line -> line.contains("Index Scan using lease_events_pkey on lease_events v"))
                    .noneMatch(line -> line.contains("Seq Scan on lease_events v"));
        }
    }

    /**
     * A batch reads its leases and waiters through the indexes, whatever the tables hold of other
     * partitions and topics: each source of resources (the batch's, the leases and the waits that
     * end within its log time) by its own index, never an OR of them, which would read the whole
     * table (every topic's leases, the ended ones kept for the request retention).
     */
    @Test
    void aBatchReadsItsLeasesAndWaitersThroughTheIndexes() throws SQLException {
        try (LockStore store = PostgresLockStore.open(env.database()); Connection connection = env.jdbc()) {
            try (Statement fill = connection.createStatement()) {
                fill.execute("INSERT INTO distributed_locks (resource, owner, fencing_token, acquired_at, expires_at, "
                        + "topic, partition) SELECT 'lease-' || i, 'o', i + 1, timestamptz '2026-12-04 00:00:00+00', "
                        + "timestamptz '2026-12-04 00:00:00+00' + (i % 3600) * interval '1 s', 'batch', i % 12 "
                        + "FROM generate_series(0, 49999) AS i");
                fill.execute("INSERT INTO lock_waiters (topic, partition, record_offset, resource, request_id, owner, "
                        + "ttl_ms, queued_at, deadline, reply_topic, fingerprint) SELECT 'batch', i % 12, i, "
                        + "'lease-' || (i % 5000), 'w-' || i, 'o', 1000, timestamptz '2026-12-04 00:00:00+00', "
                        + "timestamptz '2026-12-04 00:00:00+00' + (i % 3600) * interval '1 s', 'lock.replies', 'fp' "
                        + "FROM generate_series(0, 49999) AS i");
                fill.execute("ANALYZE distributed_locks");
                fill.execute("ANALYZE lock_waiters");
            }
            PartitionId partition = new PartitionId("batch", 0);
            Instant clock = Instant.parse("2026-12-04T00:00:00Z");
            PartitionTransaction.LeaseQuery query = new PartitionTransaction.LeaseQuery(Set.of("lease-0", "lease-12"),
                    clock, clock.plusSeconds(1), false);
            List<String> leases;
            try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + LeaseRows.SELECT)) {
                new LeaseRows(connection, partition).bind(explain, 1, query.resources(), query.endingAfter(),
                        query.endingBy());
                leases = firstColumn(explain);
            }
            assertThat(leases).as(String.join("\n", leases)).noneMatch(line -> line.contains("Seq Scan"))
                    .noneMatch(line -> line.trim().startsWith("Filter:"));
            List<String> waiters;
            try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + WaiterRows.SELECT)) {
                new WaiterRows(connection, partition).bind(explain, 1, query, List.of("w-0", "w-24"));
                waiters = firstColumn(explain);
            }
            assertThat(waiters).as(String.join("\n", waiters)).noneMatch(line -> line.contains("Seq Scan"))
                    .noneMatch(line -> line.trim().startsWith("Filter:"))
                    .anyMatch(line -> line.contains("Index Cond:") && line.contains("(resource ="));
        }
    }

    private static List<String> sweepPlan(Connection connection, String sweep) throws SQLException {
        try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + sweep)) {
            explain.setInt(1, 1_000);
            explain.setInt(2, 1_000);
            return firstColumn(explain);
        }
    }

    private static void update(Connection connection, String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, TOPIC);
            statement.executeUpdate();
        }
    }

    private static void assertLookedUpByKey(Connection connection, int partition) throws SQLException {
        List<String> wanted = List.of("q-7", "q-1500", "absent");
        assertThat(run(connection, "EXPLAIN " + PostgresPartitionTransaction.SELECT_REQUESTS, partition, wanted))
                .as("partition " + partition)
                .anyMatch(line -> line.contains("Index Scan using request_log_pkey")
                        || line.contains("Index Only Scan using request_log_pkey"))
                .anyMatch(line -> line.matches(".*Index Cond: .*request_id = .*"))
                .noneMatch(line -> line.contains("Filter:"))
                .noneMatch(line -> line.contains("request_log_partition_applied_at"));
        List<String> found = run(connection, PostgresPartitionTransaction.SELECT_REQUESTS, partition, wanted);
        assertThat(found).as("partition " + partition)
                .containsExactlyInAnyOrderElementsOf(partition < 2 ? List.of("q-7", "q-1500") : List.of());
    }

    /** The first column of every row {@code sql} returns for the store's parameters. */
    private static List<String> run(Connection connection, String sql, int partition, List<String> requestIds)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, TOPIC);
            select.setInt(2, partition);
            select.setArray(3, connection.createArrayOf("text", requestIds.toArray()));
            return firstColumn(select);
        }
    }

    private static List<String> firstColumn(PreparedStatement query) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet rs = query.executeQuery()) {
            while (rs.next()) {
                rows.add(rs.getString(1));
            }
        }
        return rows;
    }

    private static void fill(Connection connection, int partition, int entries) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO request_log "
                + "(request_id, fingerprint, reply, topic, partition, record_offset, applied_at) "
                + "SELECT 'q-' || i, 'fp', '{}', ?, ?, i, timestamptz '2026-12-04 00:00:00+00' + i * interval '1 ms' "
                + "FROM generate_series(0, ? - 1) AS i")) {
            insert.setString(1, TOPIC);
            insert.setInt(2, partition);
            insert.setInt(3, entries);
            insert.executeUpdate();
        }
    }
}
