package dev.lockstep.store;

import static dev.lockstep.store.SqlArrays.EPOCH_MS;

import dev.lockstep.core.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One batch's reads and writes of {@code distributed_locks}. Every write is conditional on the
 * token the batch read, so a lease can never be overwritten, or removed, by a decision made
 * without seeing it; UNIQUE(resource) makes a second row for a resource impossible.
 */
final class LeaseRows {

    // The batch's resources, and the partition's leases that end within the batch's log time
    // (their expiry is an event the batch shows).
    static final String SELECT =
            "SELECT resource, owner, fencing_token, acquired_at, expires_at, topic, partition FROM distributed_locks "
                    + "WHERE resource = ANY(?) OR (topic = ? AND partition = ? AND expires_at > "
                    + EPOCH_MS.formatted("?") + " AND expires_at <= " + EPOCH_MS.formatted("?")
                    + ") ORDER BY resource FOR UPDATE";
    private static final String UPDATE =
            "UPDATE distributed_locks d SET owner = u.owner, fencing_token = u.token, acquired_at = "
                    + EPOCH_MS.formatted("u.acq") + ", expires_at = " + EPOCH_MS.formatted("u.exp")
                    + ", topic = ?, partition = ?, updated_at = now() FROM unnest(?::text[], ?::text[], ?::bigint[], "
                    + "?::bigint[], ?::bigint[], ?::bigint[]) AS u(resource, owner, token, acq, exp, seen) "
                    + "WHERE d.resource = u.resource AND d.fencing_token = u.seen AND u.token >= u.seen";
    // A resource without a row: if another transaction inserted it meanwhile, this writes fewer
    // rows than expected, and the batch is retried against the new row.
    private static final String INSERT =
            "INSERT INTO distributed_locks (topic, partition, resource, owner, fencing_token, acquired_at, expires_at) "
                    + "SELECT ?, ?, resource, owner, token, " + EPOCH_MS.formatted("acq") + ", "
                    + EPOCH_MS.formatted("exp") + " FROM unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], "
                    + "?::bigint[]) AS u(resource, owner, token, acq, exp) ON CONFLICT (resource) DO NOTHING";
    private static final String DELETE =
            "DELETE FROM distributed_locks d USING unnest(?::text[], ?::bigint[]) AS u(resource, seen) "
                    + "WHERE d.resource = u.resource AND d.fencing_token = u.seen";

    private final Connection connection;
    private final PartitionId partition;
    private final Map<String, Long> seenTokens = new HashMap<>();

    LeaseRows(Connection connection, PartitionId partition) {
        this.connection = connection;
        this.partition = partition;
    }

    /**
     * A row another command topic wrote (two topics sharing one database share its resources) is
     * seen only while it may still be live: it then blocks a grant, as UNIQUE(resource) must; once
     * ended it is invisible, since nothing this partition decides may depend on another's records.
     *
     * @param endingAfter the partition's clock
     */
    Map<String, Lease> forUpdate(Collection<String> resources, Instant endingAfter, Instant endingBy)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(SELECT)) {
            bind(select, 1, resources, endingAfter, endingBy);
            try (ResultSet rs = select.executeQuery()) {
                return read(rs, endingAfter);
            }
        }
    }

    /** Binds {@link #SELECT}'s parameters from index {@code first} on. */
    void bind(PreparedStatement select, int first, Collection<String> resources, Instant endingAfter, Instant endingBy)
            throws SQLException {
        select.setArray(first, SqlArrays.text(connection, resources));
        select.setString(first + 1, partition.topic());
        select.setInt(first + 2, partition.partition());
        select.setLong(first + 3, endingAfter.toEpochMilli());
        select.setLong(first + 4, endingBy.toEpochMilli());
    }

    /** The leases of {@link #SELECT}'s rows; the tokens seen are those the batch's writes are conditional on. */
    Map<String, Lease> read(ResultSet rs, Instant endingAfter) throws SQLException {
        seenTokens.clear();
        Map<String, Lease> leases = new HashMap<>();
        while (rs.next()) {
            Lease lease = new Lease(rs.getString(1), rs.getString(2), rs.getLong(3), SqlArrays.instant(rs, 4),
                    SqlArrays.instant(rs, 5));
            seenTokens.put(lease.resource(), lease.fencingToken());
            boolean ours = partition.topic().equals(rs.getString(6)) && rs.getInt(7) == partition.partition();
            if (ours || lease.isLiveAt(endingAfter)) {
                leases.put(lease.resource(), lease);
            }
        }
        return leases;
    }

    /** Adds the writes of the batch's final leases, and the removal of the leases it released, to {@code script}. */
    void write(Script script, Collection<Lease> leases, Collection<String> removed) {
        List<Lease> updates = new ArrayList<>();
        List<Lease> inserts = new ArrayList<>();
        leases.forEach(lease -> (seenTokens.containsKey(lease.resource()) ? updates : inserts).add(lease));
        write(script, UPDATE, updates, true);
        write(script, INSERT, inserts, false);
        // A lease granted and released within the batch never had a row.
        List<String> rows = removed.stream().filter(seenTokens::containsKey).toList();
        if (rows.isEmpty()) {
            return;
        }
        script.add(DELETE, (delete, at) -> {
            delete.setArray(at.next(), SqlArrays.text(connection, rows));
            delete.setArray(at.next(), SqlArrays.bigint(connection, rows.stream().map(seenTokens::get).toList()));
        }, changed(rows.size(), "remove"));
    }

    private void write(Script script, String sql, List<Lease> leases, boolean withSeenToken) {
        if (leases.isEmpty()) {
            return;
        }
        script.add(sql, (write, at) -> {
            write.setString(at.next(), partition.topic());
            write.setInt(at.next(), partition.partition());
            write.setArray(at.next(), SqlArrays.text(connection, leases.stream().map(Lease::resource).toList()));
            write.setArray(at.next(), SqlArrays.text(connection, leases.stream().map(Lease::owner).toList()));
            write.setArray(at.next(), SqlArrays.bigint(connection, leases.stream().map(Lease::fencingToken).toList()));
            write.setArray(at.next(), SqlArrays.bigint(connection,
                    leases.stream().map(l -> l.acquiredAt().toEpochMilli()).toList()));
            write.setArray(at.next(), SqlArrays.bigint(connection,
                    leases.stream().map(l -> l.expiresAt().toEpochMilli()).toList()));
            if (withSeenToken) {
                write.setArray(at.next(), SqlArrays.bigint(connection,
                        leases.stream().map(l -> seenTokens.get(l.resource())).toList()));
            }
        }, changed(leases.size(), "write"));
    }

    private Script.Check changed(int expected, String what) {
        return Script.exactly(expected, "expected to " + what + " " + expected + " leases on " + partition
                + ": another transaction changed them concurrently");
    }
}
