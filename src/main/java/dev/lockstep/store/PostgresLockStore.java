package dev.lockstep.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
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
