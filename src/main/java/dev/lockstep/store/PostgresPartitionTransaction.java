package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.Quarantine;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
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

    private static final String SELECT_PARTITION =
            "SELECT topic_id, next_offset, last_now, token_base, quarantine_from, quarantine_to, quarantine_until, "
                    + "settings FROM partition_progress WHERE topic = ? AND partition = ? FOR UPDATE";
    private static final String UPSERT_PARTITION =
            "INSERT INTO partition_progress (topic, partition, topic_id, next_offset, last_now, token_base, "
                    + "quarantine_from, quarantine_to, quarantine_until, settings, request_retention_ms, acked_offset) "
                    + "VALUES (?, ?, ?, ?, " + EPOCH_MS.formatted("?") + ", ?, ?, ?, " + EPOCH_MS.formatted("?")
                    + ", ?, ?, ?) ON CONFLICT (topic, partition) DO UPDATE SET topic_id = EXCLUDED.topic_id, "
                    // Within one incarnation, replies not yet acknowledged stay owed.
                    + "acked_offset = CASE WHEN partition_progress.topic_id = EXCLUDED.topic_id "
                    + "THEN LEAST(partition_progress.acked_offset, EXCLUDED.acked_offset) ELSE EXCLUDED.acked_offset END, "
                    + "next_offset = EXCLUDED.next_offset, last_now = EXCLUDED.last_now, "
                    + "token_base = EXCLUDED.token_base, quarantine_from = EXCLUDED.quarantine_from, "
                    + "quarantine_to = EXCLUDED.quarantine_to, quarantine_until = EXCLUDED.quarantine_until, "
                    + "settings = EXCLUDED.settings, request_retention_ms = EXCLUDED.request_retention_ms";
    private static final String INSERT_EPOCH =
            "INSERT INTO partition_epochs (topic, partition, start_offset, topic_id, token_base, settings, reason) "
                    + "VALUES (?, ?, ?, ?, ?, ?, ?)";
    private static final String UPDATE_POSITION =
            "UPDATE partition_progress SET next_offset = ?, last_now = " + EPOCH_MS.formatted("?")
                    + ", quarantine_from = ?, quarantine_to = ?, quarantine_until = " + EPOCH_MS.formatted("?")
                    + ", acked_offset = GREATEST(acked_offset, ?) WHERE topic = ? AND partition = ?";
    private static final String SELECT_ACKED =
            "SELECT acked_offset FROM partition_progress WHERE topic = ? AND partition = ?";
    private static final String SELECT_REQUESTS =
            "SELECT request_id, fingerprint, reply, record_offset, applied_at FROM request_log "
                    + "WHERE topic = ? AND partition = ? AND request_id = ANY(?)";
    // A request ID applied again after its retention replaces its old entry.
    private static final String UPSERT_REQUESTS =
            "INSERT INTO request_log (request_id, fingerprint, reply, topic, partition, record_offset, applied_at) "
                    + "SELECT id, fp, body, ?, ?, off, " + EPOCH_MS.formatted("at")
                    + " FROM unnest(?::text[], ?::text[], ?::text[], ?::bigint[], ?::bigint[]) AS u(id, fp, body, off, at) "
                    + "ON CONFLICT (topic, partition, request_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, "
                    + "reply = EXCLUDED.reply, record_offset = EXCLUDED.record_offset, applied_at = EXCLUDED.applied_at";
    private static final String SELECT_LEASES =
            "SELECT resource, owner, fencing_token, acquired_at, expires_at FROM distributed_locks "
                    + "WHERE resource = ANY(?) ORDER BY resource FOR UPDATE";
    // Only rows this transaction read and locked are updated, and only if their token is the one
    // it read: a lease can never be overwritten by a decision made without seeing it.
    private static final String UPDATE_LEASES =
            "UPDATE distributed_locks d SET owner = u.owner, fencing_token = u.token, acquired_at = "
                    + EPOCH_MS.formatted("u.acq") + ", expires_at = " + EPOCH_MS.formatted("u.exp")
                    + ", topic = ?, partition = ?, updated_at = now() FROM unnest(?::text[], ?::text[], ?::bigint[], "
                    + "?::bigint[], ?::bigint[], ?::bigint[]) AS u(resource, owner, token, acq, exp, seen) "
                    + "WHERE d.resource = u.resource AND d.fencing_token = u.seen AND u.token >= u.seen";
    // A resource nobody held yet: if another transaction inserted it meanwhile, UNIQUE(resource)
    // turns this into fewer rows than expected, and the batch is retried against the new row.
    private static final String INSERT_LEASES =
            "INSERT INTO distributed_locks (topic, partition, resource, owner, fencing_token, acquired_at, expires_at) "
                    + "SELECT ?, ?, resource, owner, token, " + EPOCH_MS.formatted("acq") + ", "
                    + EPOCH_MS.formatted("exp") + " FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], "
                    + "?::bigint[]) AS u(resource, owner, token, acq, exp) ON CONFLICT (resource) DO NOTHING";
    private static final String SELECT_LARGEST_TOKEN = "SELECT COALESCE(MAX(fencing_token), 0) FROM distributed_locks";

    private final Connection connection;
    private final PartitionId partition;
    private final Map<String, Long> seenTokens = new HashMap<>();

    PostgresPartitionTransaction(Connection connection, PartitionId partition) {
        this.connection = connection;
        this.partition = partition;
    }

    @Override
    public Optional<StoredPartition> partition() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_PARTITION)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                long from = rs.getLong(5);
                Optional<Quarantine> quarantine = rs.wasNull() ? Optional.empty()
                        : Optional.of(new Quarantine(from, rs.getLong(6), Optional.ofNullable(
                                rs.getObject(7, OffsetDateTime.class)).map(OffsetDateTime::toInstant)));
                PartitionPosition position = new PartitionPosition(rs.getLong(2), instant(rs, 3), rs.getLong(4),
                        quarantine);
                return Optional.of(new StoredPartition(Optional.ofNullable(rs.getString(1)), position,
                        Optional.ofNullable(rs.getString(8)).map(EngineSettings::parse)));
            }
        } catch (SQLException e) {
            throw fail("reading the partition's position", e);
        }
    }

    @Override
    public Map<String, RequestEntry> requests(Collection<String> requestIds) {
        Map<String, RequestEntry> entries = new HashMap<>();
        if (requestIds.isEmpty()) {
            return entries;
        }
        try (PreparedStatement select = connection.prepareStatement(SELECT_REQUESTS)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            select.setArray(3, textArray(requestIds));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    RequestEntry entry = new RequestEntry(rs.getString(1), rs.getString(2), rs.getString(3),
                            rs.getLong(4), instant(rs, 5));
                    entries.put(entry.requestId(), entry);
                }
            }
            return entries;
        } catch (SQLException e) {
            throw fail("reading request entries", e);
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
    public long largestToken() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_LARGEST_TOKEN);
                ResultSet rs = select.executeQuery()) {
            return rs.next() ? rs.getLong(1) : 0;
        } catch (SQLException e) {
            throw fail("reading the largest token", e);
        }
    }

    @Override
    public void save(Collection<Lease> leases, Collection<RequestEntry> requests, PartitionPosition position,
            long acknowledged) {
        try {
            List<Lease> updates = new ArrayList<>();
            List<Lease> inserts = new ArrayList<>();
            leases.forEach(lease -> (seenTokens.containsKey(lease.resource()) ? updates : inserts).add(lease));
            writeLeases(UPDATE_LEASES, updates, true);
            writeLeases(INSERT_LEASES, inserts, false);
            upsertRequests(requests);
            try (PreparedStatement update = connection.prepareStatement(UPDATE_POSITION)) {
                update.setLong(1, position.nextOffset());
                update.setLong(2, position.clock().toEpochMilli());
                setQuarantine(update, 3, position.quarantine());
                update.setLong(6, acknowledged);
                update.setString(7, partition.topic());
                update.setInt(8, partition.partition());
                if (update.executeUpdate() != 1) {
                    throw new SQLException("partition " + partition + " was never started");
                }
            }
        } catch (SQLException e) {
            throw fail("saving the batch", e);
        }
    }

    @Override
    public long acknowledgedOffset() {
        try (PreparedStatement select = connection.prepareStatement(SELECT_ACKED)) {
            select.setString(1, partition.topic());
            select.setInt(2, partition.partition());
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        } catch (SQLException e) {
            throw fail("reading the acknowledged offset", e);
        }
    }

    @Override
    public void begin(StoredPartition started, String reason) {
        PartitionPosition position = started.position();
        String topicId = started.topicId().orElseThrow(() -> new IllegalArgumentException("an epoch needs a topic ID"));
        EngineSettings settings = started.settings()
                .orElseThrow(() -> new IllegalArgumentException("an epoch needs settings"));
        try (PreparedStatement upsert = connection.prepareStatement(UPSERT_PARTITION);
                PreparedStatement epoch = connection.prepareStatement(INSERT_EPOCH)) {
            upsert.setString(1, partition.topic());
            upsert.setInt(2, partition.partition());
            upsert.setString(3, topicId);
            upsert.setLong(4, position.nextOffset());
            upsert.setLong(5, position.clock().toEpochMilli());
            upsert.setLong(6, position.tokenBase());
            setQuarantine(upsert, 7, position.quarantine());
            upsert.setString(10, settings.canonical());
            upsert.setLong(11, settings.requestRetention().toMillis());
            upsert.setLong(12, position.nextOffset());
            upsert.executeUpdate();
            epoch.setString(1, partition.topic());
            epoch.setInt(2, partition.partition());
            epoch.setLong(3, position.nextOffset());
            epoch.setString(4, topicId);
            epoch.setLong(5, position.tokenBase());
            epoch.setString(6, settings.canonical());
            epoch.setString(7, reason);
            epoch.executeUpdate();
        } catch (SQLException e) {
            throw fail("recording a new epoch", e);
        }
    }

    private static void setQuarantine(PreparedStatement statement, int first, Optional<Quarantine> quarantine)
            throws SQLException {
        if (quarantine.isEmpty()) {
            statement.setNull(first, Types.BIGINT);
            statement.setNull(first + 1, Types.BIGINT);
            statement.setNull(first + 2, Types.BIGINT);
            return;
        }
        statement.setLong(first, quarantine.get().lostFrom());
        statement.setLong(first + 1, quarantine.get().lostTo());
        if (quarantine.get().until().isPresent()) {
            statement.setLong(first + 2, quarantine.get().until().get().toEpochMilli());
        } else {
            statement.setNull(first + 2, Types.BIGINT);
        }
    }

    private void writeLeases(String sql, List<Lease> leases, boolean withSeenToken) throws SQLException {
        if (leases.isEmpty()) {
            return;
        }
        try (PreparedStatement write = connection.prepareStatement(sql)) {
            write.setString(1, partition.topic());
            write.setInt(2, partition.partition());
            write.setArray(3, textArray(leases.stream().map(Lease::resource).toList()));
            write.setArray(4, textArray(leases.stream().map(Lease::owner).toList()));
            write.setArray(5, longArray(leases.stream().map(Lease::fencingToken).toList()));
            write.setArray(6, longArray(leases.stream().map(l -> l.acquiredAt().toEpochMilli()).toList()));
            write.setArray(7, longArray(leases.stream().map(l -> l.expiresAt().toEpochMilli()).toList()));
            if (withSeenToken) {
                write.setArray(8, longArray(leases.stream().map(l -> seenTokens.get(l.resource())).toList()));
            }
            int written = write.executeUpdate();
            if (written != leases.size()) {
                throw new SQLException("expected to write " + leases.size() + " leases on " + partition + " but wrote "
                        + written + ": another transaction changed them concurrently", "40001");
            }
        }
    }

    private void upsertRequests(Collection<RequestEntry> requests) throws SQLException {
        if (requests.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement(UPSERT_REQUESTS)) {
            insert.setString(1, partition.topic());
            insert.setInt(2, partition.partition());
            insert.setArray(3, textArray(requests.stream().map(RequestEntry::requestId).toList()));
            insert.setArray(4, textArray(requests.stream().map(RequestEntry::fingerprint).toList()));
            insert.setArray(5, textArray(requests.stream().map(RequestEntry::reply).toList()));
            insert.setArray(6, longArray(requests.stream().map(RequestEntry::offset).toList()));
            insert.setArray(7, longArray(requests.stream().map(r -> r.appliedAt().toEpochMilli()).toList()));
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
