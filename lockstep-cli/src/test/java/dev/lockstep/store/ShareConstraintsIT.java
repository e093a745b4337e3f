package dev.lockstep.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The database, not only the worker, makes an over-grant impossible (V11): one row per permit,
 * permits below the resource's limit, and a resource's shared rows of one limit, so never more
 * holders than the limit, whatever a buggy writer tries.
 */
class ShareConstraintsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final String UNIQUE = "23505";
    private static final String CHECK = "23514";
    private static final String EXCLUSION = "23P01";

    @BeforeAll
    static void migrate() {
        PostgresLockStore.open(env.database()).close();
    }

    private static void insert(Connection connection, String resource, int permit, String mode, int limit)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO distributed_locks (topic, partition, "
                + "resource, owner, fencing_token, acquired_at, expires_at, permit, mode, permit_limit) VALUES "
                + "('shares', 0, ?, ?, ?, now(), now() + interval '1 minute', ?, ?, ?)")) {
            insert.setString(1, resource);
            insert.setString(2, "owner-" + permit);
            insert.setLong(3, 1 + permit);
            insert.setInt(4, permit);
            insert.setString(5, mode);
            insert.setInt(6, limit);
            insert.executeUpdate();
        }
    }

    private static void refused(String sqlState, ThrowingInsert insert) {
        assertThatThrownBy(() -> {
            try (Connection connection = env.jdbc()) {
                insert.into(connection);
            }
        }).isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState()).as(e.getMessage())
                .isEqualTo(sqlState));
    }

    @FunctionalInterface
    private interface ThrowingInsert {
        void into(Connection connection) throws SQLException;
    }

    @Test
    void aSemaphoreHoldsAtMostItsLimitOfRows() throws SQLException {
        try (Connection connection = env.jdbc()) {
            for (int permit = 0; permit < 4; permit++) {
                insert(connection, "sem", permit, "shared", 4);
            }
        }
        refused(CHECK, c -> insert(c, "sem", 4, "shared", 4));
        refused(UNIQUE, c -> insert(c, "sem", 3, "shared", 4));
        refused(EXCLUSION, c -> insert(c, "sem", 4, "shared", 5));
        try (Connection connection = env.jdbc(); Statement count = connection.createStatement()) {
            var rs = count.executeQuery("SELECT count(*) FROM distributed_locks WHERE resource = 'sem'");
            rs.next();
            assertThat(rs.getInt(1)).isEqualTo(4);
        }
    }

    @Test
    void anExclusiveRowStandsAlone() throws SQLException {
        try (Connection connection = env.jdbc()) {
            insert(connection, "lock", 0, "exclusive", 1);
        }
        refused(UNIQUE, c -> insert(c, "lock", 0, "exclusive", 1));
        refused(CHECK, c -> insert(c, "lock", 1, "exclusive", 2));
        refused(UNIQUE, c -> insert(c, "lock", 0, "shared", 4));
        refused(CHECK, c -> insert(c, "other", 0, "both", 1));
    }

    @Test
    void readersAgreeOnTheirLimit() throws SQLException {
        try (Connection connection = env.jdbc()) {
            insert(connection, "rw", 1, "shared", 64);
            insert(connection, "rw", 2, "shared", 64);
        }
        refused(EXCLUSION, c -> insert(c, "rw", 3, "shared", 8));
        refused(CHECK, c -> insert(c, "rw", 3, "shared", 65));
    }
}
