package dev.lockstep.store;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Asks a database, before anything else starts, whether it can be used: said in one line, with the flag that fixes it. */
public final class DatabaseProbe {

    private DatabaseProbe() {
    }

    /**
     * Connects once and hangs up: whether the database can be reached with these settings.
     *
     * @throws StoreException when it cannot
     */
    public static void reachable(DatabaseSettings settings) {
        DriverManager.setLoginTimeout(5);
        try (Connection connection = RecordedState.connect(settings)) {
            connection.isValid(5);
        } catch (SQLException e) {
            throw new StoreException("cannot connect to PostgreSQL at " + DatabaseSettings.redact(settings.jdbcUrl())
                    + ": " + e.getMessage() + " (check --db-url, --db-user, --db-password)", null);
        }
    }

    /**
     * As {@link #reachable}, and that the database holds lockstep's tables: for commands that only
     * read them, which would otherwise fail on the first query with "relation does not exist".
     */
    public static void holdsLockstep(DatabaseSettings settings) {
        reachable(settings);
        try (Connection connection = RecordedState.connect(settings);
                PreparedStatement lookup = connection.prepareStatement("SELECT to_regclass('distributed_locks') IS NOT NULL");
                ResultSet rs = lookup.executeQuery()) {
            if (!rs.next() || !rs.getBoolean(1)) {
                throw new StoreException("the PostgreSQL at " + DatabaseSettings.redact(settings.jdbcUrl())
                        + " holds no lockstep tables (no worker has used it)", null);
            }
        } catch (SQLException e) {
            throw new StoreException("cannot read PostgreSQL at " + DatabaseSettings.redact(settings.jdbcUrl()) + ": "
                    + e.getMessage(), null);
        }
    }
}
