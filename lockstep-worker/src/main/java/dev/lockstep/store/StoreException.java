package dev.lockstep.store;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/** The database could not complete a batch; nothing of the batch was committed. */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * SQLSTATE classes of a failure that is the database's or the connection's, not a statement's:
     * connection exceptions, insufficient resources, operator intervention (a cancelled statement,
     * the server shutting down), system and internal errors.
     */
    private static final Set<String> DATABASE_WIDE = Set.of("08", "53", "57", "58", "XX");

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Whether {@code failure} met the database as a whole (down, cut off, overloaded, too slow)
     * rather than one partition's batch: any other batch would have failed alike, so a transaction
     * over several partitions fails for all of them, with no retry of each alone.
     */
    public static boolean databaseWide(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException) {
                return true; // no connection came from the pool in time
            }
            if (cause instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().length() >= 2
                    && DATABASE_WIDE.contains(sql.getSQLState().substring(0, 2))) {
                return true;
            }
            // HikariCP reports a connection the server ended under it without an SQL state.
            if (cause instanceof SQLException && "Connection is closed".equals(cause.getMessage())) {
                return true;
            }
        }
        return false;
    }
}
