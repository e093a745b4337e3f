package dev.lockstep.store;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gives the hot tables their first planner statistics without waiting for autovacuum (up to a
 * minute after a table filled, longer on a busy server). Every deployment, and every benchmark,
 * starts with empty tables, and plans made for empty tables go on being used after they have
 * grown: generic plans PostgreSQL caches ({@code plan_cache_mode=auto}) are made again when new
 * statistics arrive. It was first written for the request-ID lookup, which read every entry of a
 * partition until the table was analyzed (2.7 ms per single-command batch after 6,000 commands,
 * 6 ms after 18,000); that lookup no longer depends on statistics (V7, StorePlansIT).
 */
final class TableStatistics {

    /** Enough rows for a plan to matter; below it, reading them all is cheap. */
    static final int ROWS = 1_000;

    // Fixed statements for fixed names: no identifier ever comes from input.
    private static final Map<String, String> ANALYZE = Map.of(
            "request_log", "ANALYZE request_log",
            "distributed_locks", "ANALYZE distributed_locks",
            "lease_events", "ANALYZE lease_events");
    private static final String NEVER_ANALYZED =
            "SELECT relname, n_mod_since_analyze >= ? FROM pg_stat_user_tables WHERE schemaname = current_schema() "
                    + "AND relname = ANY(?) AND last_analyze IS NULL AND last_autoanalyze IS NULL";

    private TableStatistics() {
    }

    /**
     * Analyzes the hot tables that were never analyzed and have {@link #ROWS} changes.
     *
     * @return whether every hot table has statistics now (nothing left to do)
     */
    static boolean analyzeNew(Connection connection) throws SQLException {
        List<String> due = new ArrayList<>();
        int waiting = 0;
        try (PreparedStatement select = connection.prepareStatement(NEVER_ANALYZED)) {
            select.setInt(1, ROWS);
            select.setArray(2, SqlArrays.text(connection, ANALYZE.keySet()));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    if (rs.getBoolean(2)) {
                        due.add(rs.getString(1));
                    } else {
                        waiting++;
                    }
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String table : due) {
                statement.execute(ANALYZE.get(table));
            }
        }
        return waiting == 0;
    }
}
