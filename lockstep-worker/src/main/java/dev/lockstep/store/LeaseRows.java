package dev.lockstep.store;

import static dev.lockstep.store.SqlArrays.EPOCH_MS;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.LeaseKey;
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
 * without seeing it; UNIQUE(resource, permit) makes a second row for a permit impossible, and the
 * table's constraints (V11) a resource's rows of two shares or beyond their limit.
 */
final class LeaseRows {

    // The batch's resources, and every lease of the resources of the partition's leases that end
    // within the batch's log time: their expiry is an event the batch shows, and who holds the
    // resource after it (a vacancy, the permit a waiter takes) depends on the resource's other holders.
    static final String SELECT =
            "SELECT " + LeaseColumns.NAMES + ", topic, partition FROM distributed_locks WHERE resource IN ("
                    // Each source of resources through its index, and their rows through UNIQUE(resource, permit):
                    // an IN inside an OR would read the whole table.
                    + "SELECT unnest(?::text[]) UNION SELECT e.resource FROM distributed_locks e "
                    + "WHERE e.topic = ? AND e.partition = ? AND e.expires_at > " + EPOCH_MS.formatted("?")
                    + " AND e.expires_at <= " + EPOCH_MS.formatted("?") + ") ORDER BY resource, permit FOR UPDATE";
    private static final String UPDATE =
            "UPDATE distributed_locks d SET owner = u.owner, fencing_token = u.token, acquired_at = "
                    + EPOCH_MS.formatted("u.acq") + ", expires_at = " + EPOCH_MS.formatted("u.exp")
                    + ", mode = u.mode, permit_limit = u.lim, value = u.val, topic = ?, partition = ?, updated_at = now() "
                    + "FROM unnest(?::text[], ?::int[], ?::text[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[], "
                    + "?::int[], ?::text[], ?::bigint[]) AS u(resource, permit, owner, token, acq, exp, mode, lim, val, seen) "
                    + "WHERE d.resource = u.resource AND d.permit = u.permit AND d.fencing_token = u.seen "
                    + "AND u.token >= u.seen";
    // A permit without a row: if another transaction inserted it meanwhile, this writes fewer
    // rows than expected, and the batch is retried against the new row.
    private static final String INSERT =
            "INSERT INTO distributed_locks (topic, partition, " + LeaseColumns.NAMES + ") "
                    + "SELECT ?, ?, resource, owner, token, " + EPOCH_MS.formatted("acq") + ", "
                    + EPOCH_MS.formatted("exp") + ", permit, mode, lim, val FROM unnest(?::text[], ?::int[], ?::text[], "
                    + "?::bigint[], ?::bigint[], ?::bigint[], ?::text[], ?::int[], ?::text[]) "
                    + "AS u(resource, permit, owner, token, acq, exp, mode, lim, val) ON CONFLICT (resource, permit) DO NOTHING";
    private static final String DELETE =
            "DELETE FROM distributed_locks d USING unnest(?::text[], ?::int[], ?::bigint[]) AS u(resource, permit, seen) "
                    + "WHERE d.resource = u.resource AND d.permit = u.permit AND d.fencing_token = u.seen";

    private final Connection connection;
    private final PartitionId partition;
    private final Map<LeaseKey, Long> seenTokens = new HashMap<>();
    /** Rows another command topic left, ended: nobody's, removed before the batch writes their resource. */
    private final Map<String, List<Lease>> foreignEnded = new HashMap<>();

    LeaseRows(Connection connection, PartitionId partition) {
        this.connection = connection;
        this.partition = partition;
    }

    /**
     * A row another command topic wrote (two topics sharing one database share its resources) is
     * seen only while it may still be live: it then blocks a grant, as the constraints must; once
     * ended it is invisible, since nothing this partition decides may depend on another's records.
     *
     * @param endingAfter the partition's clock
     */
    List<Lease> forUpdate(Collection<String> resources, Instant endingAfter, Instant endingBy)
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
    List<Lease> read(ResultSet rs, Instant endingAfter) throws SQLException {
        seenTokens.clear();
        foreignEnded.clear();
        List<Lease> leases = new ArrayList<>();
        while (rs.next()) {
            Lease lease = LeaseColumns.read(rs, 1);
            boolean ours = partition.topic().equals(rs.getString(10)) && rs.getInt(11) == partition.partition();
            if (ours || lease.isLiveAt(endingAfter)) {
                seenTokens.put(LeaseKey.of(lease), lease.fencingToken());
                leases.add(lease);
            } else {
                foreignEnded.computeIfAbsent(lease.resource(), r -> new ArrayList<>()).add(lease);
            }
        }
        return leases;
    }

    /**
     * Adds to {@code script} the removal of the leases the batch released (or replaced by a lease
     * of another share), then the writes of its final leases: in that order, so that a resource's
     * rows are of one share at every statement.
     */
    void write(Script script, Collection<Lease> leases, Collection<LeaseKey> removed) {
        List<Lease> stale = new ArrayList<>();
        leases.stream().map(Lease::resource).distinct()
                .forEach(resource -> stale.addAll(foreignEnded.getOrDefault(resource, List.of())));
        // A lease granted and released within the batch never had a row.
        List<LeaseKey> rows = new ArrayList<>(removed.stream().filter(seenTokens::containsKey).toList());
        List<Long> tokens = new ArrayList<>(rows.stream().map(seenTokens::get).toList());
        stale.forEach(lease -> {
            rows.add(LeaseKey.of(lease));
            tokens.add(lease.fencingToken());
        });
        if (!rows.isEmpty()) {
            script.add(DELETE, (delete, at) -> {
                delete.setArray(at.next(), SqlArrays.text(connection, rows.stream().map(LeaseKey::resource).toList()));
                delete.setArray(at.next(), SqlArrays.integer(connection, rows.stream().map(LeaseKey::permit).toList()));
                delete.setArray(at.next(), SqlArrays.bigint(connection, tokens));
            }, changed(rows.size(), "remove"));
        }
        List<Lease> updates = new ArrayList<>();
        List<Lease> inserts = new ArrayList<>();
        leases.forEach(lease -> (seenTokens.containsKey(LeaseKey.of(lease)) ? updates : inserts).add(lease));
        write(script, UPDATE, updates, true);
        write(script, INSERT, inserts, false);
    }

    private void write(Script script, String sql, List<Lease> leases, boolean withSeenToken) {
        if (leases.isEmpty()) {
            return;
        }
        script.add(sql, (write, at) -> {
            write.setString(at.next(), partition.topic());
            write.setInt(at.next(), partition.partition());
            write.setArray(at.next(), SqlArrays.text(connection, leases.stream().map(Lease::resource).toList()));
            write.setArray(at.next(), SqlArrays.integer(connection, leases.stream().map(Lease::permit).toList()));
            write.setArray(at.next(), SqlArrays.text(connection, leases.stream().map(Lease::owner).toList()));
            write.setArray(at.next(), SqlArrays.bigint(connection, leases.stream().map(Lease::fencingToken).toList()));
            write.setArray(at.next(), SqlArrays.bigint(connection,
                    leases.stream().map(l -> l.acquiredAt().toEpochMilli()).toList()));
            write.setArray(at.next(), SqlArrays.bigint(connection,
                    leases.stream().map(l -> l.expiresAt().toEpochMilli()).toList()));
            write.setArray(at.next(), SqlArrays.text(connection,
                    leases.stream().map(l -> l.share().mode().wireName()).toList()));
            write.setArray(at.next(), SqlArrays.integer(connection, leases.stream().map(l -> l.share().limit()).toList()));
            write.setArray(at.next(), SqlArrays.text(connection, leases.stream().map(l -> l.value().orElse(null)).toList()));
            if (withSeenToken) {
                write.setArray(at.next(), SqlArrays.bigint(connection,
                        leases.stream().map(l -> seenTokens.get(LeaseKey.of(l))).toList()));
            }
        }, changed(leases.size(), "write"));
    }

    private Script.Check changed(int expected, String what) {
        return Script.exactly(expected, "expected to " + what + " " + expected + " leases on " + partition
                + ": another transaction changed them concurrently");
    }
}
