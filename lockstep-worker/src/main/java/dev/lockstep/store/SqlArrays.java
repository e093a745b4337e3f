package dev.lockstep.store;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Layout;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.Quarantine;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.engine.StoredReply;
import dev.lockstep.engine.TickMark;
import dev.lockstep.protocol.Fingerprint;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Values bound to and read from statements: whole batches as array parameters (so that the number of
 * statements does not grow with the batch), times, request entries, partition records, quarantines and ticks.
 */
final class SqlArrays {

    /** Times travel as epoch milliseconds and are turned into {@code timestamptz} by PostgreSQL, exactly. */
    static final String EPOCH_MS = "(timestamptz 'epoch' + %s * interval '1 millisecond')";

    private SqlArrays() {
    }

    static Array text(Connection connection, Collection<String> values) throws SQLException {
        return connection.createArrayOf("text", values.toArray(String[]::new));
    }

    static Array bigint(Connection connection, Collection<Long> values) throws SQLException {
        return connection.createArrayOf("bigint", values.toArray(Long[]::new));
    }

    static Array integer(Connection connection, Collection<Integer> values) throws SQLException {
        return connection.createArrayOf("integer", values.toArray(Integer[]::new));
    }

    /**
     * The partition's record from the columns {@code topic_id, next_offset, last_now, token_base,
     * quarantine_from, quarantine_to, quarantine_until, settings, last_tick_offset, last_tick_time,
     * live_until, layout}, in order; empty without a row. A partition that never grew routes by the
     * count its settings name: its position says so, whatever count the worker found.
     */
    static Optional<StoredPartition> storedPartition(ResultSet rs) throws SQLException {
        if (!rs.next()) {
            return Optional.empty();
        }
        Optional<EngineSettings> settings = Optional.ofNullable(rs.getString(8)).map(EngineSettings::parse);
        Optional<Layout> layout = Optional.ofNullable(rs.getString(12)).map(Layout::parse)
                .or(() -> settings.map(s -> Layout.of(s.partitions())));
        PartitionPosition position = new PartitionPosition(rs.getLong(2), instant(rs, 3), rs.getLong(4),
                quarantine(rs, 5), tick(rs, 9), optionalInstant(rs, 11), layout);
        return Optional.of(new StoredPartition(Optional.ofNullable(rs.getString(1)), position, settings));
    }

    /**
     * A request entry from the columns {@code request_id, fingerprint, reply, record_offset,
     * applied_at, decided_offset}, in order ({@code decided_offset} null: its own).
     */
    static RequestEntry requestEntry(ResultSet rs) throws SQLException {
        long offset = rs.getLong(4);
        long decided = rs.getLong(6);
        boolean ownOffset = rs.wasNull();
        return new RequestEntry(rs.getString(1), Fingerprint.ofHex(rs.getString(2)), StoredReply.ofText(rs.getString(3)),
                offset, instant(rs, 5), ownOffset ? offset : decided);
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    /** A time that may be null (not known, or none): empty then. */
    static Optional<Instant> optionalInstant(ResultSet rs, int column) throws SQLException {
        return Optional.ofNullable(rs.getObject(column, OffsetDateTime.class)).map(OffsetDateTime::toInstant);
    }

    /** A tick stored in two columns from {@code first}: its offset and its log time, both null when none is known. */
    static Optional<TickMark> tick(ResultSet rs, int first) throws SQLException {
        long offset = rs.getLong(first);
        if (rs.wasNull()) {
            return Optional.empty();
        }
        return Optional.of(new TickMark(offset, instant(rs, first + 1)));
    }

    /**
     * Binds a position's last tick and live-until time to three parameters from {@code first}: the
     * tick's offset, its log time, live until (epoch ms); nulls where they are empty.
     */
    static void setTickAndLive(PreparedStatement statement, int first, PartitionPosition position)
            throws SQLException {
        Optional<TickMark> tick = position.lastTick();
        if (tick.isPresent()) {
            statement.setLong(first, tick.get().offset());
            statement.setLong(first + 1, tick.get().logTime().toEpochMilli());
        } else {
            statement.setNull(first, Types.BIGINT);
            statement.setNull(first + 1, Types.BIGINT);
        }
        setEpochMs(statement, first + 2, position.liveUntil());
    }

    /** A quarantine stored in three columns from {@code first}: lost from, lost to, until (each may be null). */
    static Optional<Quarantine> quarantine(ResultSet rs, int first) throws SQLException {
        long from = rs.getLong(first);
        if (rs.wasNull()) {
            return Optional.empty();
        }
        return Optional.of(new Quarantine(from, rs.getLong(first + 1), optionalInstant(rs, first + 2)));
    }

    /** Binds a quarantine to three parameters from {@code first}: lost from, lost to, until (epoch ms); nulls when none. */
    static void setQuarantine(PreparedStatement statement, int first, Optional<Quarantine> quarantine)
            throws SQLException {
        if (quarantine.isEmpty()) {
            statement.setNull(first, Types.BIGINT);
            statement.setNull(first + 1, Types.BIGINT);
            statement.setNull(first + 2, Types.BIGINT);
            return;
        }
        statement.setLong(first, quarantine.get().lostFrom());
        statement.setLong(first + 1, quarantine.get().lostTo());
        setEpochMs(statement, first + 2, quarantine.get().until());
    }

    /** Binds a time as epoch milliseconds (see {@link #EPOCH_MS}); null when empty. */
    private static void setEpochMs(PreparedStatement statement, int index, Optional<Instant> time)
            throws SQLException {
        if (time.isPresent()) {
            statement.setLong(index, time.get().toEpochMilli());
        } else {
            statement.setNull(index, Types.BIGINT);
        }
    }

    /** One row of a result, read into what it stands for. */
    @FunctionalInterface
    interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /**
     * The rows {@code sql} selects for one partition's records from {@code fromOffset}
     * (inclusive) to {@code toOffset} (exclusive), its four parameters in that order.
     */
    static <T> List<T> recordRange(Connection connection, String sql, PartitionId partition, long fromOffset,
            long toOffset, Row<T> row) throws SQLException {
        List<T> rows = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            select.setLong(3, fromOffset);
            select.setLong(4, toOffset);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    rows.add(row.read(rs));
                }
            }
        }
        return rows;
    }
}
