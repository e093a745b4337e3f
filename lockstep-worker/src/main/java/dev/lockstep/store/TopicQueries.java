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
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
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
    // Ends the partition's log time has not reached, but the wall clock has: a lease's, or a wait's.
    private static final String ENDING_BY =
            "SELECT partition, min(ends) FROM (SELECT d.partition, d.expires_at AS ends FROM distributed_locks d "
                    + "JOIN partition_progress p ON p.topic = d.topic AND p.partition = d.partition "
                    + "WHERE d.topic = ? AND d.partition = ANY(?) AND d.expires_at > p.last_now AND d.expires_at <= ? "
                    + "UNION ALL SELECT w.partition, w.deadline FROM lock_waiters w JOIN partition_progress p "
                    + "ON p.topic = w.topic AND p.partition = w.partition WHERE w.topic = ? AND w.partition = ANY(?) "
                    + "AND w.deadline > p.last_now AND w.deadline <= ?) due GROUP BY partition";

    // A quarantine holds until a record at or after its end is applied (the partition's log time, never the wall clock).
    private static final String QUARANTINES = "SELECT partition, quarantine_from, quarantine_to, quarantine_until "
            + "FROM partition_progress WHERE topic = ? AND quarantine_from IS NOT NULL "
            + "AND (quarantine_until IS NULL OR quarantine_until > last_now) ORDER BY partition";

    private static final String HAND_OVERS_DUE = "SELECT partition, resource, hand_over_due FROM lock_waiters "
            + "WHERE topic = ? AND partition = ANY(?) AND hand_over_due IS NOT NULL ORDER BY partition, record_offset";

    private TopicQueries() {
    }

    static long count(DataSource dataSource, String sql, String topic, String what) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement count = connection.prepareStatement(sql)) {
            count.setString(1, topic);
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                long counted = rs.getLong(1);
                connection.rollback();
                return counted;
            }
        } catch (SQLException e) {
            throw new StoreException(what + " failed: " + e.getMessage(), e);
        }
    }

    static Map<Integer, Long> waiters(DataSource dataSource, String topic) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(WAITERS)) {
            select.setString(1, topic);
            Map<Integer, Long> waiting = new HashMap<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    waiting.put(rs.getInt(1), rs.getLong(2));
                }
            }
            connection.rollback();
            return waiting;
        } catch (SQLException e) {
            throw new StoreException("counting waiters failed: " + e.getMessage(), e);
        }
    }

    static Map<Integer, Instant> endingBy(DataSource dataSource, String topic, Collection<Integer> partitions,
            Instant by) {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(ENDING_BY)) {
            for (int first : new int[] {1, 4}) {
                select.setString(first, topic);
                select.setArray(first + 1, SqlArrays.integer(connection, partitions));
                select.setObject(first + 2, OffsetDateTime.ofInstant(by, ZoneOffset.UTC));
            }
            Map<Integer, Instant> ending = new TreeMap<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    ending.put(rs.getInt(1), SqlArrays.instant(rs, 2));
                }
            }
            connection.rollback();
            return ending;
        } catch (SQLException e) {
            throw new StoreException("looking up ends by " + by + " failed: " + e.getMessage(), e);
        }
    }

    static Map<Integer, Quarantine> quarantines(DataSource dataSource, String topic) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(QUARANTINES)) {
            select.setString(1, topic);
            Map<Integer, Quarantine> quarantined = new TreeMap<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    int partition = rs.getInt(1);
                    SqlArrays.quarantine(rs, 2).ifPresent(found -> quarantined.put(partition, found));
                }
            }
            connection.rollback();
            return quarantined;
        } catch (SQLException e) {
            throw new StoreException("looking up quarantined partitions failed: " + e.getMessage(), e);
        }
    }

    static List<DueHandOver> handOversDue(DataSource dataSource, String topic, Collection<Integer> partitions) {
        if (partitions.isEmpty()) {
            return List.of();
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(HAND_OVERS_DUE)) {
            select.setString(1, topic);
            select.setArray(2, SqlArrays.integer(connection, partitions));
            List<DueHandOver> due = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    due.add(new DueHandOver(rs.getInt(1), rs.getString(2), rs.getLong(3)));
                }
            }
            connection.rollback();
            return due;
        } catch (SQLException e) {
            throw new StoreException("looking up hand-overs due failed: " + e.getMessage(), e);
        }
    }
}
