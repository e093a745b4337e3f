package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.TickMark;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * What the database holds for one command topic, read in one read-only transaction, without
 * migrating or writing anything: what a replay compares the log with.
 *
 * @param epochs every recorded epoch start, by partition, in the order they began
 * @param progress each partition's position: next offset, clock, token base, last tick, live until
 * @param leases each partition's lease rows
 * @param checkpoints each partition's checkpoints, by next offset
 */
public record RecordedState(Map<Integer, List<RecordedEpoch>> epochs, Map<Integer, Progress> progress,
        Map<Integer, List<Lease>> leases, Map<Integer, List<RecordedCheckpoint>> checkpoints) {

    /**
     * A partition's {@code partition_progress} row.
     *
     * @param lastTick the last tick applied; empty when none was, or none is known (a row last
     *     written before it was kept)
     * @param liveUntil nothing dated is live after it; empty when not known (a row last written
     *     before it was kept)
     */
    public record Progress(Optional<String> topicId, long nextOffset, Instant clock, long tokenBase,
            Optional<TickMark> lastTick, Optional<Instant> liveUntil) {
    }

    private static final String EPOCHS =
            "SELECT partition, start_offset, topic_id, token_base, settings, origin, reason FROM partition_epochs "
                    + "WHERE topic = ? ORDER BY partition, recorded_at, start_offset";
    private static final String PROGRESS =
            "SELECT partition, topic_id, next_offset, last_now, token_base, last_tick_offset, last_tick_time, "
                    + "live_until FROM partition_progress WHERE topic = ?";
    private static final String LEASES =
            "SELECT partition, " + LeaseColumns.NAMES + " FROM distributed_locks WHERE topic = ?";

    private static final String CHECKPOINTS =
            "SELECT checkpoint_id, partition, topic_id, next_offset, last_now FROM partition_checkpoints "
                    + "WHERE topic = ? ORDER BY partition, next_offset";

    public static RecordedState read(DatabaseSettings database, String topic) {
        try (Connection connection = connect(database)) {
            connection.setReadOnly(true);
            connection.setAutoCommit(false);
            // One snapshot for the tables: a worker running meanwhile cannot tear them apart.
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            RecordedState state = new RecordedState(epochs(connection, topic), progress(connection, topic),
                    leases(connection, topic), checkpoints(connection, topic));
            connection.rollback();
            return state;
        } catch (SQLException e) {
            throw new StoreException("reading what the database recorded for " + topic + " at "
                    + DatabaseSettings.redact(database.jdbcUrl()) + " failed: " + e.getMessage(), e);
        }
    }

    /** A plain connection (no pool): the readers of recorded state are short-lived and read once. */
    static Connection connect(DatabaseSettings database) throws SQLException {
        Properties credentials = new Properties();
        database.user().ifPresent(u -> credentials.setProperty("user", u));
        database.password().ifPresent(p -> credentials.setProperty("password", p));
        return DriverManager.getConnection(database.jdbcUrl(), credentials);
    }

    private static Map<Integer, List<RecordedCheckpoint>> checkpoints(Connection connection, String topic)
            throws SQLException {
        Map<Integer, List<RecordedCheckpoint>> checkpoints = new HashMap<>();
        try (PreparedStatement select = select(connection, CHECKPOINTS, topic); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                checkpoints.computeIfAbsent(rs.getInt(2), p -> new ArrayList<>()).add(new RecordedCheckpoint(
                        rs.getLong(1), rs.getInt(2), rs.getString(3), rs.getLong(4), SqlArrays.instant(rs, 5)));
            }
        }
        return checkpoints;
    }

    private static Map<Integer, List<RecordedEpoch>> epochs(Connection connection, String topic) throws SQLException {
        Map<Integer, List<RecordedEpoch>> epochs = new HashMap<>();
        try (PreparedStatement select = select(connection, EPOCHS, topic); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                epochs.computeIfAbsent(rs.getInt(1), p -> new ArrayList<>()).add(new RecordedEpoch(rs.getLong(2),
                        rs.getString(3), rs.getLong(4), EngineSettings.parse(rs.getString(5)),
                        EpochOrigin.valueOf(rs.getString(6)), rs.getString(7)));
            }
        }
        return epochs;
    }

    private static Map<Integer, Progress> progress(Connection connection, String topic) throws SQLException {
        Map<Integer, Progress> progress = new HashMap<>();
        try (PreparedStatement select = select(connection, PROGRESS, topic); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                progress.put(rs.getInt(1), new Progress(Optional.ofNullable(rs.getString(2)), rs.getLong(3),
                        SqlArrays.instant(rs, 4), rs.getLong(5), SqlArrays.tick(rs, 6),
                        SqlArrays.optionalInstant(rs, 8)));
            }
        }
        return progress;
    }

    private static Map<Integer, List<Lease>> leases(Connection connection, String topic) throws SQLException {
        Map<Integer, List<Lease>> leases = new HashMap<>();
        try (PreparedStatement select = select(connection, LEASES, topic); ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                leases.computeIfAbsent(rs.getInt(1), p -> new ArrayList<>()).add(LeaseColumns.read(rs, 2));
            }
        }
        return leases;
    }

    private static PreparedStatement select(Connection connection, String sql, String topic) throws SQLException {
        PreparedStatement select = connection.prepareStatement(sql);
        select.setString(1, topic);
        return select;
    }
}
