package dev.lockstep.store;

import dev.lockstep.engine.Quarantine;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * Questions about a whole command topic, off the command path: for the gauges scraped with the
 * metrics and for the ticker. Each one short read-only transaction.
 */
final class TopicQueries {

    static final String LIVE_LEASES =
            "SELECT count(*) FROM distributed_locks d JOIN partition_progress p ON p.topic = d.topic "
                    + "AND p.partition = d.partition WHERE d.topic = ? AND d.expires_at > p.last_now";
    static final String LIVE_SHARED_LEASES = LIVE_LEASES + " AND d.mode = 'shared'";
    private static final String WAITERS = "SELECT partition, count(*) FROM lock_waiters WHERE topic = ? GROUP BY partition";
    // Ends the partition's log time has not reached, but the wall clock has: a lease's, a wait's, a quarantine's.
    private static final String ENDING_BY =
            "SELECT partition, min(ends) FROM (SELECT d.partition, d.expires_at AS ends FROM distributed_locks d "
                    + "JOIN partition_progress p ON p.topic = d.topic AND p.partition = d.partition "
                    + "WHERE d.topic = ? AND d.partition = ANY(?) AND d.expires_at > p.last_now AND d.expires_at <= ? "
                    + "UNION ALL SELECT w.partition, w.deadline FROM lock_waiters w JOIN partition_progress p "
                    + "ON p.topic = w.topic AND p.partition = w.partition WHERE w.topic = ? AND w.partition = ANY(?) "
                    + "AND w.deadline > p.last_now AND w.deadline <= ? "
                    // A quarantine's end hands the queues over: a tick shows it where waiters wait.
                    + "UNION ALL SELECT p.partition, p.quarantine_until FROM partition_progress p WHERE p.topic = ? "
                    + "AND p.partition = ANY(?) AND p.quarantine_until > p.last_now AND p.quarantine_until <= ? "
                    + "AND EXISTS (SELECT 1 FROM lock_waiters w WHERE w.topic = p.topic AND w.partition = p.partition)"
                    + ") due GROUP BY partition";

    // A quarantine holds until a record at or after its end is applied (the partition's log time, never the wall clock).
    private static final String QUARANTINES = "SELECT partition, quarantine_from, quarantine_to, quarantine_until "
            + "FROM partition_progress WHERE topic = ? AND quarantine_from IS NOT NULL "
            + "AND (quarantine_until IS NULL OR quarantine_until > last_now) ORDER BY partition";

    // A live-until time not known (a row from before it was kept, V15) may hide anything: kept.
    private static final String WITH_TIME_TO_KEEP = "SELECT partition, next_offset FROM partition_progress "
            + "WHERE topic = ? AND partition = ANY(?) AND (live_until IS NULL OR live_until > last_now) ORDER BY partition";

    private static final String HAND_OVERS_DUE = "SELECT partition, resource, hand_over_due FROM lock_waiters "
            + "WHERE topic = ? AND partition = ANY(?) AND hand_over_due IS NOT NULL ORDER BY partition, record_offset";

    private TopicQueries() {
    }

    static long count(DataSource dataSource, String sql, String topic, String what) {
        return rows(dataSource, sql, (connection, select) -> select.setString(1, topic), rs -> rs.getLong(1), what)
                .get(0);
    }

    static Map<Integer, Long> waiters(DataSource dataSource, String topic) {
        return byPartition(rows(dataSource, WAITERS, (connection, select) -> select.setString(1, topic),
                rs -> Map.entry(rs.getInt(1), rs.getLong(2)), "counting waiters"));
    }

    static Map<Integer, Instant> endingBy(DataSource dataSource, String topic, Collection<Integer> partitions,
            Instant by) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        return byPartition(rows(dataSource, ENDING_BY, (connection, select) -> {
            for (int first : new int[] {1, 4, 7}) {
                select.setString(first, topic);
                select.setArray(first + 1, SqlArrays.integer(connection, partitions));
                select.setObject(first + 2, OffsetDateTime.ofInstant(by, ZoneOffset.UTC));
            }
        }, rs -> Map.entry(rs.getInt(1), SqlArrays.instant(rs, 2)), "looking up ends by " + by));
    }

    static Map<Integer, Quarantine> quarantines(DataSource dataSource, String topic) {
        // The statement selects only rows with a quarantine: every one reads as one.
        return byPartition(rows(dataSource, QUARANTINES, (connection, select) -> select.setString(1, topic),
                rs -> Map.entry(rs.getInt(1), SqlArrays.quarantine(rs, 2).orElseThrow()),
                "looking up quarantined partitions"));
    }

    static Map<Integer, Long> withTimeToKeep(DataSource dataSource, String topic, Set<Integer> partitions) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        return byPartition(rows(dataSource, WITH_TIME_TO_KEEP, (connection, select) -> {
            select.setString(1, topic);
            select.setArray(2, SqlArrays.integer(connection, partitions));
        }, rs -> Map.entry(rs.getInt(1), rs.getLong(2)), "looking up partitions with time to keep"));
    }

    static List<DueHandOver> handOversDue(DataSource dataSource, String topic, Collection<Integer> partitions) {
        if (partitions.isEmpty()) {
            return List.of();
        }
        return rows(dataSource, HAND_OVERS_DUE, (connection, select) -> {
            select.setString(1, topic);
            select.setArray(2, SqlArrays.integer(connection, partitions));
        }, rs -> new DueHandOver(rs.getInt(1), rs.getString(2), rs.getLong(3)), "looking up hand-overs due");
    }

    /** Binds a statement's parameters (an array needs the connection). */
    @FunctionalInterface
    interface Parameters {
        void bind(Connection connection, PreparedStatement select) throws SQLException;
    }

    /** The rows {@code sql} selects, in one short read-only transaction; {@code what} names it in a failure. */
    static <T> List<T> rows(DataSource dataSource, String sql, Parameters parameters, SqlArrays.Row<T> row,
            String what) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(sql)) {
            parameters.bind(connection, select);
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(row.read(rs));
                }
            }
            connection.rollback();
            return rows;
        } catch (SQLException e) {
            throw new StoreException(what + " failed: " + e.getMessage(), e);
        }
    }

    private static <V> Map<Integer, V> byPartition(List<Map.Entry<Integer, V>> rows) {
        return rows.stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> b, TreeMap::new));
    }
}
