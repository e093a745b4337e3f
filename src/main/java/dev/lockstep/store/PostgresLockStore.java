package dev.lockstep.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.function.Function;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The PostgreSQL store: a HikariCP pool, the Flyway migrations run on open, and one transaction
 * per partition batch.
 */
public final class PostgresLockStore implements LockStore {

    private final HikariDataSource dataSource;

    private PostgresLockStore(HikariDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Connects, migrates the schema to the current version, and returns the store. */
    public static PostgresLockStore open(DatabaseSettings settings) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.jdbcUrl());
        settings.user().ifPresent(config::setUsername);
        settings.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(settings.poolSize());
        config.setAutoCommit(false);
        config.setPoolName("lockstep");
        // Every table starts empty. A generic plan cached while a table was small keeps scanning
        // it sequentially after it has grown (measured: request_log read 20 M rows in a 10 s
        // benchmark); a custom plan per execution sees the table as it is and uses the index.
        config.setConnectionInitSql("SET plan_cache_mode = force_custom_plan");
        // Fail fast at start with a clear message instead of waiting 30 s for a pool that cannot fill.
        config.setInitializationFailTimeout(5_000);
        // A batch that cannot get a connection soon fails, is logged, and is retried with backoff:
        // an outage shows in the log within seconds instead of hiding in a pool queue.
        config.setConnectionTimeout(3_000);
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreException("cannot connect to PostgreSQL at " + DatabaseSettings.redact(settings.jdbcUrl())
                    + ": " + rootMessage(e), e);
        }
        try {
            Flyway.configure().dataSource(dataSource).load().migrate();
        } catch (FlywayException e) {
            dataSource.close();
            throw new StoreException("migrating the lockstep schema failed: " + rootMessage(e), e);
        }
        return new PostgresLockStore(dataSource);
    }

    @Override
    public <T> T inPartition(PartitionId partition, Function<PartitionTransaction, T> work) {
        try (Connection connection = dataSource.getConnection()) {
            try {
                T result = work.apply(new PostgresPartitionTransaction(connection, partition));
                connection.commit();
                return result;
            } catch (RuntimeException | SQLException e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException("batch on " + partition + " failed: " + e.getMessage(), e);
        }
    }

    // SKIP LOCKED: a lease that a batch is deciding on right now is left for the next sweep, so
    // the sweeper never waits for, or blocks, the hot path.
    private static final String SWEEP_LEASES =
            "WITH doomed AS (SELECT resource FROM distributed_locks WHERE expires_at < ? ORDER BY expires_at LIMIT ? "
                    + "FOR UPDATE SKIP LOCKED), "
                    + "gone AS (DELETE FROM distributed_locks d USING doomed WHERE d.resource = doomed.resource "
                    + "RETURNING d.fencing_token) "
                    + "UPDATE fencing_floor SET floor = GREATEST(floor, (SELECT COALESCE(MAX(fencing_token), 0) FROM gone)) "
                    + "RETURNING (SELECT count(*) FROM gone)";
    private static final String SWEEP_REPLIES =
            "DELETE FROM request_log WHERE request_id IN (SELECT request_id FROM request_log WHERE applied_at < ? "
                    + "ORDER BY applied_at LIMIT ? FOR UPDATE SKIP LOCKED)";

    @Override
    public SweepResult sweep(Instant leasesEndedBefore, Instant repliesAppliedBefore, int limit) {
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement leases = connection.prepareStatement(SWEEP_LEASES);
                    PreparedStatement replies = connection.prepareStatement(SWEEP_REPLIES)) {
                leases.setObject(1, OffsetDateTime.ofInstant(leasesEndedBefore, ZoneOffset.UTC));
                leases.setInt(2, limit);
                int removedLeases;
                try (ResultSet rs = leases.executeQuery()) {
                    removedLeases = rs.next() ? rs.getInt(1) : 0;
                }
                replies.setObject(1, OffsetDateTime.ofInstant(repliesAppliedBefore, ZoneOffset.UTC));
                replies.setInt(2, limit);
                int removedReplies = replies.executeUpdate();
                connection.commit();
                return new SweepResult(removedLeases, removedReplies);
            } catch (SQLException e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException("sweeping ended leases and old replies failed: " + e.getMessage(), e);
        }
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    @Override
    public void close() {
        dataSource.close();
    }
}
