package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The live leases of a command topic as the database holds them, a page at a time (keyset paging by
 * resource), for {@code lockstep locks}. Read-only; what an operator sees, not what decides anything.
 */
public final class LiveLeases {

    private static final String PAGE =
            "SELECT " + LeaseColumns.NAMES + " FROM distributed_locks "
                    + "WHERE topic = ? AND expires_at > " + SqlArrays.EPOCH_MS.formatted("?")
                    + " AND starts_with(resource, ?) AND (CAST(? AS TEXT) IS NULL OR owner = ?) AND resource > ? "
                    + "ORDER BY resource, permit LIMIT ?";

    /** One page, and the resource to continue after when there are more. */
    public record Page(List<Lease> leases, Optional<String> next) {

        public Page {
            leases = List.copyOf(leases);
        }
    }

    private LiveLeases() {
    }

    /**
     * @param now leases ending at or before it are not listed
     * @param after list the resources after this one ("" for the first page)
     */
    public static Page read(DatabaseSettings database, String topic, Instant now, String prefix, Optional<String> owner,
            String after, int limit) {
        try (Connection connection = RecordedState.connect(database);
                PreparedStatement select = connection.prepareStatement(PAGE)) {
            connection.setReadOnly(true);
            select.setString(1, topic);
            select.setLong(2, now.toEpochMilli());
            select.setString(3, prefix);
            select.setString(4, owner.orElse(null));
            select.setString(5, owner.orElse(null));
            select.setString(6, after);
            // Enough to finish the last resource of the page: one has at most that many permits.
            select.setInt(7, limit + Share.MAX_LIMIT);
            List<Lease> leases = new ArrayList<>();
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    leases.add(LeaseColumns.read(rs, 1));
                }
            }
            if (leases.size() > limit) {
                // A resource's permits are never split between pages: the page ends after its last.
                String last = leases.get(limit - 1).resource();
                int end = limit;
                while (end < leases.size() && leases.get(end).resource().equals(last)) {
                    end++;
                }
                if (end < leases.size()) {
                    return new Page(leases.subList(0, end), Optional.of(last));
                }
            }
            return new Page(leases, Optional.empty());
        } catch (SQLException e) {
            throw new StoreException("listing live leases at " + DatabaseSettings.redact(database.jdbcUrl()) + " failed: "
                    + e.getMessage(), e);
        }
    }
}
