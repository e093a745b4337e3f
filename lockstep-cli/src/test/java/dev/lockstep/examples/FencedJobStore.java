package dev.lockstep.examples;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The example's protected resource: a job table that enforces fencing tokens itself. Every
 * write carries the writer's token; a token smaller than the largest one the store has seen for
 * that job is refused. This, not the lock alone, is what makes a paused holder harmless.
 */
final class FencedJobStore implements AutoCloseable {

    private final Connection db;

    FencedJobStore(String jdbcUrl) throws SQLException {
        this.db = DriverManager.getConnection(jdbcUrl);
    }

    void createTables() throws SQLException {
        try (Statement st = db.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS example_jobs (job TEXT PRIMARY KEY, highest_token BIGINT NOT NULL, "
                    + "completed_by TEXT, completed_token BIGINT)");
            st.execute("CREATE TABLE IF NOT EXISTS example_rejections (job TEXT NOT NULL, runner TEXT NOT NULL, "
                    + "fencing_token BIGINT NOT NULL, highest_token BIGINT NOT NULL)");
        }
    }

    boolean isDone(String job) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement("SELECT completed_by FROM example_jobs WHERE job = ?")) {
            ps.setString(1, job);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getString(1) != null;
            }
        }
    }

    /** A holder announces its token before working; the store remembers the largest. */
    void begin(String job, long token) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO example_jobs (job, highest_token) VALUES (?, ?) "
                + "ON CONFLICT (job) DO UPDATE SET highest_token = GREATEST(example_jobs.highest_token, EXCLUDED.highest_token)")) {
            ps.setString(1, job);
            ps.setLong(2, token);
            ps.executeUpdate();
        }
    }

    /** @return false, and the attempt is recorded, when a newer token was seen or the job is done already */
    boolean complete(String job, String runner, long token) throws SQLException {
        try (PreparedStatement ps = db.prepareStatement("UPDATE example_jobs SET completed_by = ?, completed_token = ? "
                + "WHERE job = ? AND highest_token = ? AND completed_by IS NULL")) {
            ps.setString(1, runner);
            ps.setLong(2, token);
            ps.setString(3, job);
            ps.setLong(4, token);
            if (ps.executeUpdate() == 1) {
                return true;
            }
        }
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO example_rejections (job, runner, fencing_token, "
                + "highest_token) SELECT ?, ?, ?, highest_token FROM example_jobs WHERE job = ?")) {
            ps.setString(1, job);
            ps.setString(2, runner);
            ps.setLong(3, token);
            ps.setString(4, job);
            ps.executeUpdate();
        }
        return false;
    }

    @Override
    public void close() throws SQLException {
        db.close();
    }
}
