package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Mode;
import dev.lockstep.core.Share;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/** A lease's columns, as {@code distributed_locks} and {@code checkpoint_leases} both hold them, read one way. */
final class LeaseColumns {

    /** In the order {@link #read} takes them. */
    static final String NAMES = "resource, owner, fencing_token, acquired_at, expires_at, permit, mode, permit_limit, value";

    private LeaseColumns() {
    }

    /** The lease in the row's columns {@link #NAMES}, from index {@code first} on. */
    static Lease read(ResultSet rs, int first) throws SQLException {
        Mode mode = Mode.fromWireName(rs.getString(first + 6))
                .orElseThrow(() -> new SQLException("a lease's mode is 'exclusive' or 'shared'"));
        return new Lease(rs.getString(first), rs.getString(first + 1), rs.getLong(first + 2),
                SqlArrays.instant(rs, first + 3), SqlArrays.instant(rs, first + 4), rs.getInt(first + 5),
                new Share(mode, rs.getInt(first + 7)), Optional.ofNullable(rs.getString(first + 8)));
    }
}
