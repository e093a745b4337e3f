package dev.lockstep.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;

/**
 * Takes a partition's checkpoint inside the batch transaction that just saved its position: the
 * copy is made by PostgreSQL from the rows the batch left (nothing travels to the worker), so it
 * is exactly the state at the saved position. The store remembers each partition's latest
 * checkpoint time, so most batches ask nothing; the copy runs once per interval of log time.
 */
final class CheckpointRows {

    // Due when no checkpoint of this incarnation is less than the interval of log time old.
    private static final String INSERT_IF_DUE =
            "INSERT INTO partition_checkpoints (topic, partition, topic_id, next_offset, last_now, token_base, "
                    + "quarantine_from, quarantine_to, quarantine_until, request_retention_ms, last_tick_offset, "
                    + "last_tick_time, live_until, layout) "
                    + "SELECT p.topic, p.partition, p.topic_id, p.next_offset, p.last_now, p.token_base, p.quarantine_from, "
                    + "p.quarantine_to, p.quarantine_until, p.request_retention_ms, p.last_tick_offset, "
                    + "p.last_tick_time, p.live_until, p.layout FROM partition_progress p "
                    + "WHERE p.topic = ? AND p.partition = ? AND p.topic_id IS NOT NULL AND NOT EXISTS ("
                    + "SELECT 1 FROM partition_checkpoints c WHERE c.topic = p.topic AND c.partition = p.partition "
                    + "AND c.topic_id = p.topic_id AND c.last_now > p.last_now - ? * interval '1 millisecond') "
                    + "ON CONFLICT DO NOTHING RETURNING checkpoint_id";
    private static final String RETAINED = " * interval '1 millisecond' > c.last_now";
    private static final String COPY_LEASES =
            "INSERT INTO checkpoint_leases (checkpoint_id, " + LeaseColumns.NAMES + ") "
                    + "SELECT c.checkpoint_id, d.resource, d.owner, d.fencing_token, d.acquired_at, d.expires_at, "
                    + "d.permit, d.mode, d.permit_limit, d.value "
                    + "FROM partition_checkpoints c JOIN distributed_locks d ON d.topic = c.topic AND d.partition = c.partition "
                    + "WHERE c.checkpoint_id = ? AND d.expires_at + c.request_retention_ms" + RETAINED;
    private static final String COPY_REQUESTS =
            "INSERT INTO checkpoint_requests (checkpoint_id, request_id, fingerprint, reply, record_offset, applied_at, "
                    + "decided_offset) SELECT c.checkpoint_id, r.request_id, r.fingerprint, r.reply, r.record_offset, "
                    + "r.applied_at, r.decided_offset "
                    + "FROM partition_checkpoints c JOIN request_log r ON r.topic = c.topic AND r.partition = c.partition "
                    + "WHERE c.checkpoint_id = ? AND r.applied_at + c.request_retention_ms" + RETAINED;
    private static final String COPY_WAITERS =
            "INSERT INTO checkpoint_waiters (checkpoint_id, " + WaiterRows.COLUMNS + ") SELECT c.checkpoint_id, "
                    + "w.record_offset, w.resource, w.request_id, w.owner, w.ttl_ms, w.queued_at, w.deadline, "
                    + "w.reply_topic, w.reply_partition, w.correlation_id, w.fingerprint, w.mode, w.permit_limit, w.value "
                    + "FROM partition_checkpoints c JOIN lock_waiters w ON w.topic = c.topic AND w.partition = c.partition "
                    + "WHERE c.checkpoint_id = ?";
    private static final String LATEST =
            "SELECT max(c.last_now) FROM partition_checkpoints c JOIN partition_progress p ON p.topic = c.topic "
                    + "AND p.partition = c.partition AND p.topic_id = c.topic_id WHERE c.topic = ? AND c.partition = ?";
    private static final String PRUNE =
            "DELETE FROM partition_checkpoints WHERE topic = ? AND partition = ? AND checkpoint_id NOT IN ("
                    + "SELECT checkpoint_id FROM partition_checkpoints WHERE topic = ? AND partition = ? "
                    + "ORDER BY checkpoint_id DESC LIMIT ?)";

    private CheckpointRows() {
    }

    /**
     * @param clock the partition's clock as just saved
     * @param latest each partition's latest checkpoint time as last seen by this store: a guide only
     *     (the statement decides), so one left behind by a rolled-back batch or another worker only
     *     moves a checkpoint by up to an interval
     * @return whether a checkpoint was taken
     */
    static boolean takeIfDue(Connection connection, PartitionId partition, CheckpointPolicy policy, Instant clock,
            Map<PartitionId, Instant> latest) throws SQLException {
        Instant known = latest.get(partition);
        if (!policy.enabled() || (known != null && clock.isBefore(known.plus(policy.interval())))) {
            return false;
        }
        if (!take(connection, partition, policy)) {
            try (PreparedStatement select = connection.prepareStatement(LATEST)) {
                select.setString(1, partition.topic());
                select.setInt(2, partition.partition());
                try (ResultSet rs = select.executeQuery()) {
                    if (rs.next() && rs.getObject(1) != null) {
                        latest.put(partition, SqlArrays.instant(rs, 1));
                    }
                }
            }
            return false;
        }
        latest.put(partition, clock);
        return true;
    }

    private static boolean take(Connection connection, PartitionId partition, CheckpointPolicy policy)
            throws SQLException {
        long id;
        try (PreparedStatement insert = connection.prepareStatement(INSERT_IF_DUE)) {
            insert.setString(1, partition.topic());
            insert.setInt(2, partition.partition());
            insert.setLong(3, policy.interval().toMillis());
            try (ResultSet rs = insert.executeQuery()) {
                if (!rs.next()) {
                    return false;
                }
                id = rs.getLong(1);
            }
        }
        // A day of request entries may be millions of rows, copied here and deleted with the oldest
        // checkpoint: more than a batch's timeouts allow.
        LongStatements.run(connection, () -> {
            for (String copy : new String[] {COPY_LEASES, COPY_REQUESTS, COPY_WAITERS}) {
                try (PreparedStatement statement = connection.prepareStatement(copy)) {
                    statement.setLong(1, id);
                    statement.executeUpdate();
                }
            }
            try (PreparedStatement prune = connection.prepareStatement(PRUNE)) {
                prune.setString(1, partition.topic());
                prune.setInt(2, partition.partition());
                prune.setString(3, partition.topic());
                prune.setInt(4, partition.partition());
                prune.setInt(5, policy.keep());
                prune.executeUpdate();
            }
        });
        return true;
    }
}
