package dev.lockstep.store;

import static dev.lockstep.store.SqlArrays.EPOCH_MS;

import dev.lockstep.core.Mode;
import dev.lockstep.core.Outcome;
import dev.lockstep.core.Share;
import dev.lockstep.engine.DeferredReply;
import dev.lockstep.engine.ReplyRoute;
import dev.lockstep.engine.StoredReply;
import dev.lockstep.engine.Waiter;
import dev.lockstep.store.PartitionTransaction.LeaseQuery;
import dev.lockstep.protocol.Fingerprint;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One batch's reads and writes of the wait queues ({@code lock_waiters}) and of the replies the
 * batch's records gave waiters ({@code deferred_replies}). A waiter is read with everything its
 * one reply needs, since the record that queued it is not read again.
 */
final class WaiterRows {

    /** A waiter's columns, in the order {@link #waiter} reads them. */
    static final String COLUMNS = "record_offset, resource, request_id, owner, ttl_ms, queued_at, deadline, reply_topic, "
            + "reply_partition, correlation_id, fingerprint, mode, permit_limit, value";
    // The queues of the batch's resources, of the partition's leases that end within its log time,
    // and of the waiters whose wait ends within it (the next in line may be granted then); the
    // waiters of its request IDs; every queue when the batch may end a quarantine. Each part through
    // an index of its own: an OR of them would read the partition's every waiter.
    static final String SELECT =
            "SELECT " + COLUMNS + " FROM lock_waiters w WHERE w.topic = ? AND w.partition = ? AND w.resource IN ("
                    + "SELECT unnest(?::text[]) UNION SELECT x.resource FROM lock_waiters x WHERE x.topic = ? "
                    + "AND x.partition = ? AND x.deadline <= " + EPOCH_MS.formatted("?")
                    + " UNION SELECT d.resource FROM distributed_locks d WHERE d.topic = ? AND d.partition = ? "
                    + "AND d.expires_at > " + EPOCH_MS.formatted("?") + " AND d.expires_at <= " + EPOCH_MS.formatted("?")
                    + ") UNION SELECT " + COLUMNS + " FROM lock_waiters w WHERE w.topic = ? AND w.partition = ? "
                    + "AND w.request_id = ANY(?) UNION SELECT " + COLUMNS + " FROM lock_waiters w WHERE ? "
                    + "AND w.topic = ? AND w.partition = ?";
    private static final String INSERT =
            "INSERT INTO lock_waiters (topic, partition, record_offset, resource, request_id, owner, ttl_ms, queued_at, "
                    + "deadline, reply_topic, reply_partition, correlation_id, fingerprint, mode, permit_limit, value) VALUES "
                    + "(?, ?, ?, ?, ?, ?, ?, " + EPOCH_MS.formatted("?") + ", " + EPOCH_MS.formatted("?")
                    + ", ?, ?, ?, ?, ?, ?, ?)";
    private static final String MARK_DUE =
            "UPDATE lock_waiters SET hand_over_due = ? WHERE topic = ? AND partition = ? AND record_offset = ?";
    private static final String DELETE =
            "DELETE FROM lock_waiters WHERE topic = ? AND partition = ? AND record_offset = ANY(?)";
    private static final String SELECT_REPLIES =
            "SELECT record_offset, reply_index, request_id, reply_topic, reply_partition, correlation_id, reply, outcome, "
                    + "request_offset "
                    + "FROM deferred_replies WHERE topic = ? AND partition = ? AND record_offset >= ? AND record_offset < ?";
    private static final String INSERT_REPLY =
            "INSERT INTO deferred_replies (topic, partition, record_offset, reply_index, request_id, reply_topic, "
                    + "reply_partition, correlation_id, reply, outcome, request_offset) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final Connection connection;
    private final PartitionId partition;

    WaiterRows(Connection connection, PartitionId partition) {
        this.connection = connection;
        this.partition = partition;
    }

    List<Waiter> read(LeaseQuery query, Collection<String> requestIds) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(SELECT)) {
            bind(select, 1, query, requestIds);
            try (ResultSet rs = select.executeQuery()) {
                return readAll(rs);
            }
        }
    }

    /** Binds {@link #SELECT}'s parameters from index {@code first} on. */
    void bind(PreparedStatement select, int first, LeaseQuery query, Collection<String> requestIds)
            throws SQLException {
        int at = first;
        at = bindPartition(select, at);
        select.setArray(at++, SqlArrays.text(connection, query.resources()));
        at = bindPartition(select, at);
        select.setLong(at++, query.endingBy().toEpochMilli());
        at = bindPartition(select, at);
        select.setLong(at++, query.endingAfter().toEpochMilli());
        select.setLong(at++, query.endingBy().toEpochMilli());
        at = bindPartition(select, at);
        select.setArray(at++, SqlArrays.text(connection, requestIds));
        select.setBoolean(at++, query.everyQueue());
        bindPartition(select, at);
    }

    /** The partition's topic and number at {@code at}; the index after them. */
    private int bindPartition(PreparedStatement statement, int at) throws SQLException {
        statement.setString(at, partition.topic());
        statement.setInt(at + 1, partition.partition());
        return at + 2;
    }

    /** The waiters of {@link #SELECT}'s rows. */
    static List<Waiter> readAll(ResultSet rs) throws SQLException {
        List<Waiter> waiters = new ArrayList<>();
        while (rs.next()) {
            waiters.add(waiter(rs));
        }
        return waiters;
    }

    /** The waiter in the current row of a query of {@link #COLUMNS}. */
    static Waiter waiter(ResultSet rs) throws SQLException {
        return new Waiter(rs.getString(2), rs.getString(3), rs.getString(4), Duration.ofMillis(rs.getLong(5)),
                rs.getLong(1), SqlArrays.instant(rs, 6), SqlArrays.instant(rs, 7), route(rs, 8),
                Optional.ofNullable(rs.getBytes(10)), Fingerprint.ofHex(rs.getString(11)), share(rs, 12),
                Optional.ofNullable(rs.getString(14)));
    }

    private static Share share(ResultSet rs, int column) throws SQLException {
        Mode mode = Mode.fromWireName(rs.getString(column))
                .orElseThrow(() -> new SQLException("a waiter's mode is 'exclusive' or 'shared'"));
        return new Share(mode, rs.getInt(column + 1));
    }

    /**
     * The waiters that joined, and the offsets of those that left, since the batch read them; then
     * the marks of those due for a hand-over (waiter's offset to the record's after which it was).
     */
    void write(Script script, Collection<Waiter> joined, Collection<Long> left, Map<Long, Long> due) {
        if (!left.isEmpty()) {
            script.add(DELETE, (delete, at) -> {
                delete.setString(at.next(), partition.topic());
                delete.setInt(at.next(), partition.partition());
                delete.setArray(at.next(), SqlArrays.bigint(connection, left));
            }, Script.exactly(left.size(), "waiters on " + partition + " removed concurrently"));
        }
        for (Waiter waiter : joined) {
            script.add(INSERT, (insert, at) -> {
                insert.setString(at.next(), partition.topic());
                insert.setInt(at.next(), partition.partition());
                insert.setLong(at.next(), waiter.offset());
                insert.setString(at.next(), waiter.resource());
                insert.setString(at.next(), waiter.requestId());
                insert.setString(at.next(), waiter.owner());
                insert.setLong(at.next(), waiter.ttl().toMillis());
                insert.setLong(at.next(), waiter.queuedAt().toEpochMilli());
                insert.setLong(at.next(), waiter.deadline().toEpochMilli());
                bindRoute(insert, at, waiter.route());
                insert.setBytes(at.next(), waiter.correlationId().orElse(null));
                insert.setString(at.next(), waiter.fingerprint().hex());
                insert.setString(at.next(), waiter.share().mode().wireName());
                insert.setInt(at.next(), waiter.share().limit());
                insert.setString(at.next(), waiter.value().orElse(null));
            }, Script.exactly(1, "a waiter on " + partition + " written concurrently"));
        }
        due.forEach((waiter, after) -> script.add(MARK_DUE, (update, at) -> {
            update.setLong(at.next(), after);
            update.setString(at.next(), partition.topic());
            update.setInt(at.next(), partition.partition());
            update.setLong(at.next(), waiter);
        }, Script.exactly(1, "a waiter on " + partition + " removed concurrently")));
    }

    List<DeferredReply> replies(long fromOffset, long toOffset) throws SQLException {
        return SqlArrays.recordRange(connection, SELECT_REPLIES, partition, fromOffset, toOffset,
                rs -> new DeferredReply(rs.getLong(1), rs.getInt(2), rs.getString(3), rs.getLong(9), route(rs, 4),
                        Optional.ofNullable(rs.getBytes(6)), StoredReply.ofText(rs.getString(7)),
                        Outcome.fromWireName(rs.getString(8)).orElseThrow()));
    }

    void insertReplies(Script script, List<DeferredReply> replies) {
        for (DeferredReply reply : replies) {
            script.add(INSERT_REPLY, (insert, at) -> {
                insert.setString(at.next(), partition.topic());
                insert.setInt(at.next(), partition.partition());
                insert.setLong(at.next(), reply.offset());
                insert.setInt(at.next(), reply.index());
                insert.setString(at.next(), reply.requestId());
                bindRoute(insert, at, reply.route());
                insert.setBytes(at.next(), reply.correlationId().orElse(null));
                insert.setString(at.next(), reply.reply().text());
                insert.setString(at.next(), reply.outcome().wireName());
                insert.setLong(at.next(), reply.requestOffset());
            }, Script.exactly(1, "a deferred reply on " + partition + " written concurrently"));
        }
    }

    private static ReplyRoute route(ResultSet rs, int column) throws SQLException {
        String topic = rs.getString(column);
        int replyPartition = rs.getInt(column + 1);
        // wasNull speaks of the last column read: the partition, read last.
        return new ReplyRoute(topic, rs.wasNull() ? OptionalInt.empty() : OptionalInt.of(replyPartition));
    }

    private static void bindRoute(PreparedStatement statement, Script.Index at, ReplyRoute route) throws SQLException {
        statement.setString(at.next(), route.topic());
        if (route.partition().isPresent()) {
            statement.setInt(at.next(), route.partition().getAsInt());
        } else {
            statement.setNull(at.next(), Types.INTEGER);
        }
    }
}
