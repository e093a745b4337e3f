package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.Layout;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.Waiter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads recorded checkpoints whole, one at a time, on one read-only connection: a replay holds only
 * the checkpoint it is starting from or comparing.
 */
public final class CheckpointReader implements AutoCloseable {

    private static final String HEADER =
            "SELECT next_offset, last_now, token_base, quarantine_from, quarantine_to, quarantine_until, "
                    + "last_tick_offset, last_tick_time, live_until, layout FROM partition_checkpoints WHERE checkpoint_id = ?";
    private static final String LEASES =
            "SELECT " + LeaseColumns.NAMES + " FROM checkpoint_leases WHERE checkpoint_id = ?";
    private static final String REQUESTS =
            "SELECT request_id, fingerprint, reply, record_offset, applied_at, decided_offset FROM checkpoint_requests "
                    + "WHERE checkpoint_id = ?";
    private static final String WAITERS = "SELECT " + WaiterRows.COLUMNS + " FROM checkpoint_waiters WHERE checkpoint_id = ?";

    private final Connection connection;
    private final DatabaseSettings database;

    private CheckpointReader(Connection connection, DatabaseSettings database) {
        this.connection = connection;
        this.database = database;
    }

    public static CheckpointReader open(DatabaseSettings database) {
        try {
            Connection connection = RecordedState.connect(database);
            connection.setReadOnly(true);
            connection.setAutoCommit(false);
            // A checkpoint's tables from one snapshot, whatever a running worker prunes meanwhile.
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            return new CheckpointReader(connection, database);
        } catch (SQLException e) {
            throw failed(database, e);
        }
    }

    /** The checkpoint's state; empty when it was removed since it was listed. */
    public Optional<Checkpoint> read(RecordedCheckpoint recorded) {
        try {
            Optional<PartitionPosition> position = position(recorded.id());
            if (position.isEmpty()) {
                return Optional.empty();
            }
            List<Lease> leases = new ArrayList<>();
            try (PreparedStatement select = select(LEASES, recorded.id()); ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    leases.add(LeaseColumns.read(rs, 1));
                }
            }
            List<RequestEntry> requests = new ArrayList<>();
            try (PreparedStatement select = select(REQUESTS, recorded.id()); ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    requests.add(SqlArrays.requestEntry(rs));
                }
            }
            List<Waiter> waiters = new ArrayList<>();
            try (PreparedStatement select = select(WAITERS, recorded.id()); ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    waiters.add(WaiterRows.waiter(rs));
                }
            }
            connection.rollback();
            return Optional.of(new Checkpoint(position.get(), leases, requests, waiters));
        } catch (SQLException e) {
            throw failed(database, e);
        }
    }

    private Optional<PartitionPosition> position(long id) throws SQLException {
        try (PreparedStatement select = select(HEADER, id); ResultSet rs = select.executeQuery()) {
            if (!rs.next()) {
                return Optional.empty();
            }
            return Optional.of(new PartitionPosition(rs.getLong(1), SqlArrays.instant(rs, 2), rs.getLong(3),
                    SqlArrays.quarantine(rs, 4), SqlArrays.tick(rs, 7), SqlArrays.optionalInstant(rs, 9),
                    Optional.ofNullable(rs.getString(10)).map(Layout::parse)));
        }
    }

    private PreparedStatement select(String sql, long id) throws SQLException {
        PreparedStatement select = connection.prepareStatement(sql);
        select.setLong(1, id);
        return select;
    }

    private static StoreException failed(DatabaseSettings database, SQLException e) {
        return new StoreException("reading a checkpoint at " + DatabaseSettings.redact(database.jdbcUrl()) + " failed: "
                + e.getMessage(), e);
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            throw failed(database, e);
        }
    }
}
