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
 * Keeps the hot tables' planner statistics in step with the tables, without waiting for
 * autovacuum. PostgreSQL caches a generic plan of each of the worker's statements
 * ({@code plan_cache_mode=auto}) and makes it again only when new statistics arrive, so a plan
 * made for a small table goes on being used after the table has grown. The request-ID lookup's
 * generic plan made for a table with no statistics (taken as 777 rows) reads the whole table for
 * each batch: in {@code bench --trace}, whose tables are emptied between its runs, the transaction
 * took 190 ms at p50 and over 400 ms at p99 at 200 commands/s, until autovacuum came by (it had
 * not, two minutes on). A table is analyzed when it has had {@link #ROWS} changes and no statistics
 * (new, or emptied by TRUNCATE), and again whenever it has had as many changes since as it had
 * rows then (it about doubled): a cached plan is then made for at most about twice the rows it
 * meets, and a table of N rows costs about log2(N) analyses to grow to.
 */
final class TableStatistics {

    /** Enough rows for a plan to matter; below it, reading them all is cheap. */
    static final int ROWS = 1_000;

    // Fixed statements for fixed names: no identifier ever comes from input.
    private static final Map<String, String> ANALYZE = Map.of(
            "request_log", "ANALYZE request_log",
            "distributed_locks", "ANALYZE distributed_locks",
            "lease_events", "ANALYZE lease_events");
    // reltuples is -1 until a table's first analysis, and again after TRUNCATE.
    private static final String STATES =
            "SELECT s.relname, c.reltuples >= 0 AND (s.last_analyze IS NOT NULL OR s.last_autoanalyze IS NOT NULL), "
                    + "s.n_mod_since_analyze >= greatest(?, c.reltuples) FROM pg_stat_user_tables s "
                    + "JOIN pg_class c ON c.oid = s.relid WHERE s.schemaname = current_schema() AND s.relname = ANY(?)";

    private TableStatistics() {
    }

    /**
     * Analyzes the hot tables that have had {@link #ROWS} changes and no statistics, or as many
     * changes as they had rows when last analyzed.
     *
     * @return whether every hot table has statistics now, none of them outgrown
     */
    static boolean analyzeOutgrown(Connection connection) throws SQLException {
        List<String> due = new ArrayList<>();
        int waiting = 0;
        try (PreparedStatement select = connection.prepareStatement(STATES)) {
            select.setInt(1, ROWS);
            select.setArray(2, SqlArrays.text(connection, ANALYZE.keySet()));
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    if (rs.getBoolean(3)) {
                        due.add(rs.getString(1));
                    } else if (!rs.getBoolean(2)) {
                        waiting++;
                    }
                }
            }
        }
        if (!due.isEmpty()) {
            LongStatements.run(connection, () -> {
                try (Statement statement = connection.createStatement()) {
                    for (String table : due) {
                        statement.execute(ANALYZE.get(table));
                    }
                }
            });
        }
        return waiting == 0;
    }
}
