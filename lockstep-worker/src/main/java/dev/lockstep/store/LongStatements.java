package dev.lockstep.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The few statements of the worker that may rightly outlast its sessions' tight timeouts: a
 * checkpoint's copy of a partition's request log, and statistics for a large table. The session's
 * timeouts ({@link DatabaseTimeouts}) are chosen for a batch, whose longest takes a few hundred
 * milliseconds, so that a hung connection is given up within seconds; these get {@link #BOUND}
 * instead, for this transaction only, and the connection's own timeouts back afterwards.
 */
final class LongStatements {

    /** Long enough for a checkpoint of millions of request entries; still a bound on a hung server. */
    static final Duration BOUND = Duration.ofMinutes(10);
    private static final Duration SOCKET_MARGIN = Duration.ofSeconds(30);
    /** pgjdbc runs nothing on the executor; a caller's thread is as good as any. */
    private static final Executor SAME_THREAD = Runnable::run;

    /** What runs under the longer bound. */
    @FunctionalInterface
    interface Work {
        void run() throws SQLException;
    }

    private LongStatements() {
    }

    /** Runs {@code work} with {@link #BOUND} as its statement timeout and (plus a margin) socket timeout. */
    static void run(Connection connection, Work work) throws SQLException {
        String statementTimeout = currentStatementTimeout(connection);
        int networkTimeout = connection.getNetworkTimeout();
        setStatementTimeout(connection, Long.toString(BOUND.toMillis()));
        connection.setNetworkTimeout(SAME_THREAD, (int) BOUND.plus(SOCKET_MARGIN).toMillis());
        // Restored after the work succeeded only: a failed one leaves the transaction aborted (where
        // set_config fails too) or the connection broken. A batch's connection is then closed; a
        // pooled one is rolled back and its network timeout reset by HikariCP when returned.
        work.run();
        connection.setNetworkTimeout(SAME_THREAD, networkTimeout);
        setStatementTimeout(connection, statementTimeout);
    }

    private static String currentStatementTimeout(Connection connection) throws SQLException {
        try (PreparedStatement show = connection.prepareStatement("SELECT current_setting('statement_timeout')");
                ResultSet rs = show.executeQuery()) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** For this transaction only (set_config's is_local): a rollback restores the session's own. */
    private static void setStatementTimeout(Connection connection, String value) throws SQLException {
        try (PreparedStatement set = connection.prepareStatement("SELECT set_config('statement_timeout', ?, true)")) {
            set.setString(1, value);
            set.executeQuery().close();
        }
    }
}
