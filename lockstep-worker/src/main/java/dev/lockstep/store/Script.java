package dev.lockstep.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Several parameterized statements sent to PostgreSQL as one: the driver sends them in one
 * round trip and they run in order, each seeing the one before, as separate statements would.
 * A batch's writes were up to six round trips, each a wake-up of the database backend and of the
 * apply thread; on a machine whose cores the broker and the database share, that was a large part
 * of a batch's cost. Each statement's row count is checked against what it must be.
 *
 * <pre>{@code
 * Script script = new Script();
 * script.add(UPDATE_POSITION, (statement, at) -> statement.setLong(at.next(), nextOffset), Script.exactly(1, "..."));
 * script.run(connection);
 * }</pre>
 */
final class Script {

    /** Binds one statement's parameters, taking their indexes from {@code at}, in the order of its placeholders. */
    @FunctionalInterface
    interface Binder {
        void bind(PreparedStatement statement, Index at) throws SQLException;
    }

    /** What a statement's row count must be. */
    @FunctionalInterface
    interface Check {
        void rows(int count) throws SQLException;
    }

    /** The next parameter index of the combined statement. */
    static final class Index {
        private int next = 1;

        int next() {
            return next++;
        }

        /** The first of the next {@code count} indexes, all taken. */
        int take(int count) {
            int first = next;
            next += count;
            return first;
        }
    }

    private final List<String> statements = new ArrayList<>();
    private final List<Binder> binders = new ArrayList<>();
    private final List<Check> checks = new ArrayList<>();

    static Check exactly(int expected, String otherwise) {
        return count -> {
            if (count != expected) {
                // A serialization failure: the batch is retried against what the other transaction wrote.
                throw new SQLException(otherwise + " (expected " + expected + " rows, found " + count + ")", "40001");
            }
        };
    }

    void add(String sql, Binder binder, Check check) {
        if (sql.indexOf(';') >= 0) {
            throw new IllegalArgumentException("one statement at a time: " + sql);
        }
        statements.add(sql);
        binders.add(binder);
        checks.add(check);
    }

    void run(Connection connection) throws SQLException {
        if (statements.isEmpty()) {
            return;
        }
        try (PreparedStatement statement = connection.prepareStatement(String.join(";\n", statements))) {
            Index at = new Index();
            for (Binder binder : binders) {
                binder.bind(statement, at);
            }
            boolean rows = statement.execute();
            for (int i = 0; i < checks.size(); i++) {
                if (i > 0) {
                    rows = statement.getMoreResults();
                }
                if (rows) {
                    throw new SQLException("statement " + (i + 1) + " of a write script returned rows: " + statements.get(i));
                }
                checks.get(i).rows(statement.getUpdateCount());
            }
        }
    }
}
