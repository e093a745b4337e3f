package dev.lockstep.store;

import dev.lockstep.core.Lease;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One batch's statements. Every value is a bound parameter; arrays carry whole batches so the
 * number of statements does not grow with the batch. Times travel as epoch milliseconds and are
 * turned into {@code timestamptz} by PostgreSQL, exactly.
 */
final class PostgresPartitionTransaction implements PartitionTransaction {

    private static final String EPOCH_MS = "(timestamptz 'epoch' + %s * interval '1 millisecond')";

    private static final String SELECT_PROGRESS =
            "SELECT next_offset, last_now FROM partition_progress WHERE topic = ? AND partition = ? FOR UPDATE";
    private static final String INSERT_PROGRESS =
            "INSERT INTO partition_progress (topic, partition, next_offset, last_now) "
                    + "VALUES (?, ?, 0, timestamptz 'epoch') ON CONFLICT DO NOTHING";
    private static final String UPDATE_PROGRESS =
            "UPDATE partition_progress SET next_offset = ?, last_now = " + EPOCH_MS.formatted("?")
                    + " WHERE topic = ? AND partition = ?";
    private static final String SELECT_REPLIES =
            "SELECT request_id, fingerprint, reply, topic, partition, record_offset, applied_at "
                    + "FROM request_log WHERE request_id = ANY(?)";
    private static final String INSERT_REPLIES =
            "INSERT INTO request_log (request_id, fingerprint, reply, topic, partition, record_offset, applied_at) "
                    + "SELECT id, fp, body, ?, ?, off, " + EPOCH_MS.formatted("at")
                    + " FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS u(id, fp, body, off, at)";
    private static final String SELECT_LEASES =
            "SELECT resource, owner, fencing_token, acquired_at, expires_at FROM distributed_locks "
                    + "WHERE resource = ANY(?) ORDER BY resource FOR UPDATE";
    // Only rows this transaction read and locked are updated, and only if their token is the one
    // it read: a lease can never be overwritten by a decision made without seeing it.
    private static final String UPDATE_LEASES =
            "UPDATE distributed_locks d SET owner = u.owner, fencing_token = u.token, acquired_at = "
                    + EPOCH_MS.formatted("u.acq") + ", expires_at = " + EPOCH_MS.formatted("u.exp")
                    + ", updated_at = now() FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], "
                    + "?::bigint[]) AS u(resource, owner, token, acq, exp, seen) "
                    + "WHERE d.resource = u.resource AND d.fencing_token = u.seen AND u.token >= u.seen";
    // A resource nobody held yet: if another transaction inserted it meanwhile, UNIQUE(resource)
    // turns this into fewer rows than expected, and the batch is retried against the new row.
    private static final String INSERT_LEASES =
            "INSERT INTO distributed_locks (resource, owner, fencing_token, acquired_at, expires_at) "
                    + "SELECT resource, owner, token, " + EPOCH_MS.formatted("acq") + ", " + EPOCH_MS.formatted("exp")
                    + " FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[]) "
                    + "AS u(resource, owner, token, acq, exp) ON CONFLICT (resource) DO NOTHING";

    private static final String SELECT_FLOOR = "SELECT floor FROM fencing_floor";

    private final Connection connection;
    private final PartitionId partition;
    private final Map<String, Long> seenTokens = new HashMap<>();

    PostgresPartitionTransaction(Connection connection, PartitionId partition) {
        this.connection = connection;
        this.partition = partition;
    }

    @Override
    public PartitionProgress progress() {
        try {
            Optional<PartitionProgress> progress = selectProgress();
            if (progress.isPresent()) {
                return progress.get();
            }
            try (PreparedStatement insert = connection.prepareStatement(INSERT_PROGRESS)) {
                insert.setString(1, partition.topic());
                insert.setInt(2, partition.partition());
                insert.executeUpdate();
            }
            return selectProgress().orElseThrow(() -> new SQLException("progress row vanished for " + partition));
        } catch (SQLException e) {
            throw fail("reading progress", e);
        }
    }

    private Optional<PartitionProgress> selectProgress() throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(SELECT_PROGRESS)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            try (ResultSet rs = select.executeQuery()) {
                return rs.next()
                        ? Optional.of(new PartitionProgress(rs.getLong(1), instant(rs, 2)))
                        : Optional.empty();
            }
        }
    }

    @Override
    public Map<String, StoredReply> storedReplies(Collection<String> requestIds) {
        Map<String, StoredReply> replies = new HashMap<>();
        if (requestIds.isEmpty()) {
            return replies;
        }
        try (PreparedStatement select = connection.prepareStatement(SELECT_REPLIES)) {
            select.setArray(1, textArray(requestIds));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    StoredReply reply = new StoredReply(rs.getString(1), rs.getString(2), rs.getString(3),
                            new PartitionId(rs.getString(4), rs.getInt(5)), rs.getLong(6), instant(rs, 7));
                    replies.put(reply.requestId(), reply);
                }
            }
            return replies;
        } catch (SQLException e) {
            throw fail("reading stored replies", e);
        }
    }

    @Override
    public Map<String, Lease> leasesForUpdate(Collection<String> resources) {
        Map<String, Lease> leases = new HashMap<>();
        if (resources.isEmpty()) {
            return leases;
        }
        try (PreparedStatement select = connection.prepareStatement(SELECT_LEASES)) {
            select.setArray(1, textArray(resources));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    Lease lease = new Lease(rs.getString(1), rs.getString(2), rs.getLong(3), instant(rs, 4), instant(rs, 5));
                    leases.put(lease.resource(), lease);
                    seenTokens.put(lease.resource(), lease.fencingToken());
                }
            }
            return leases;
        } catch (SQLException e) {
            throw fail("reading leases", e);
        }
    }

    @Override
    public long tokenFloor() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_FLOOR);
                ResultSet rs = select.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            throw fail("reading the token floor", e);
        }
    }

    @Override
    public void save(Collection<Lease> leases, Collection<StoredReply> replies, PartitionProgress progress) {
        try {
            List<Lease> updates = new ArrayList<>();
            List<Lease> inserts = new ArrayList<>();
            leases.forEach(lease -> (seenTokens.containsKey(lease.resource()) ? updates : inserts).add(lease));
            writeLeases(UPDATE_LEASES, updates, true);
            writeLeases(INSERT_LEASES, inserts, false);
            insertReplies(replies);
            try (PreparedStatement update = connection.prepareStatement(UPDATE_PROGRESS)) {
                update.setLong(1, progress.nextOffset());
                update.setLong(2, progress.lastNow().toEpochMilli());
                update.setString(3, partition.topic());
                update.setInt(4, partition.partition());
                update.executeUpdate();
            }
        } catch (SQLException e) {
            throw fail("saving the batch", e);
        }
    }

    private void writeLeases(String sql, List<Lease> leases, boolean withSeenToken) throws SQLException {
        if (leases.isEmpty()) {
            return;
        }
        try (PreparedStatement write = connection.prepareStatement(sql)) {
            write.setArray(1, textArray(leases.stream().map(Lease::resource).toList()));
            write.setArray(2, textArray(leases.stream().map(Lease::owner).toList()));
            write.setArray(3, longArray(leases.stream().map(Lease::fencingToken).toList()));
            write.setArray(4, longArray(leases.stream().map(l -> l.acquiredAt().toEpochMilli()).toList()));
            write.setArray(5, longArray(leases.stream().map(l -> l.expiresAt().toEpochMilli()).toList()));
            if (withSeenToken) {
                write.setArray(6, longArray(leases.stream().map(l -> seenTokens.get(l.resource())).toList()));
            }
            int written = write.executeUpdate();
            if (written != leases.size()) {
                throw new SQLException("expected to write " + leases.size() + " leases on " + partition + " but wrote "
                        + written + ": another transaction changed them concurrently", "40001");
            }
        }
    }

    private void insertReplies(Collection<StoredReply> replies) throws SQLException {
        if (replies.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement(INSERT_REPLIES)) {
            insert.setString(1, partition.topic());
            insert.setInt(2, partition.partition());
            insert.setArray(3, textArray(replies.stream().map(StoredReply::requestId).toList()));
            insert.setArray(4, textArray(replies.stream().map(StoredReply::fingerprint).toList()));
            insert.setArray(5, textArray(replies.stream().map(StoredReply::reply).toList()));
            insert.setArray(6, longArray(replies.stream().map(StoredReply::offset).toList()));
            insert.setArray(7, longArray(replies.stream().map(r -> r.appliedAt().toEpochMilli()).toList()));
            insert.executeUpdate();
        }
    }

    private Array textArray(Collection<String> values) throws SQLException {
        return connection.createArrayOf("text", values.toArray(String[]::new));
    }

    private Array longArray(Collection<Long> values) throws SQLException {
        return connection.createArrayOf("bigint", values.toArray(Long[]::new));
    }

    private static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }

    private StoreException fail(String what, SQLException e) {
        return new StoreException(what + " on " + partition + " failed: " + e.getMessage(), e);
    }
}
