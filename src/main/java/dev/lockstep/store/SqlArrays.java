package dev.lockstep.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Collection;

/** Whole batches as bound array parameters, so that the number of statements does not grow with the batch. */
final class SqlArrays {

    /** Times travel as epoch milliseconds and are turned into {@code timestamptz} by PostgreSQL, exactly. */
    static final String EPOCH_MS = "(timestamptz 'epoch' + %s * interval '1 millisecond')";

    private SqlArrays() {
    }

    static Array text(Connection connection, Collection<String> values) throws SQLException {
        return connection.createArrayOf("text", values.toArray(String[]::new));
    }

    static Array bigint(Connection connection, Collection<Long> values) throws SQLException {
        return connection.createArrayOf("bigint", values.toArray(Long[]::new));
    }

    static Array integer(Connection connection, Collection<Integer> values) throws SQLException {
        return connection.createArrayOf("integer", values.toArray(Integer[]::new));
    }

    static Instant instant(ResultSet rs, int column) throws SQLException {
        return rs.getObject(column, OffsetDateTime.class).toInstant();
    }
}
