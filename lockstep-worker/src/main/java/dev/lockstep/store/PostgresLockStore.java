package dev.lockstep.store;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.lockstep.engine.Layout;
import dev.lockstep.engine.Quarantine;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.postgresql.ds.PGSimpleDataSource;
import org.flywaydb.core.api.FlywayException;

/**
 * The PostgreSQL store: a HikariCP pool, the Flyway migrations run on open, and one transaction
 * per partition batch.
 */
public final class PostgresLockStore implements LockStore {

    private static final int OPEN_ATTEMPTS = 5;

    /** The {@code application_name} of the worker's database sessions. */
    public static final String APPLICATION_NAME = "lockstep-worker";

    private final HikariDataSource dataSource;
    /** Each partition's latest checkpoint time as last seen here, so that most batches need not ask. */
    private final Map<PartitionId, Instant> checkpointed = new ConcurrentHashMap<>();

    private PostgresLockStore(HikariDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Connects, migrates the schema to the current version, and returns the store. */
    public static PostgresLockStore open(DatabaseSettings settings) {
        return open(settings, Optional.empty());
    }

    /** As {@link #open(DatabaseSettings)}, with the connection pool's metrics on {@code registry}. */
    public static PostgresLockStore open(DatabaseSettings settings, MeterRegistry registry) {
        return open(settings, Optional.of(registry));
    }

    private static PostgresLockStore open(DatabaseSettings settings, Optional<MeterRegistry> registry) {
        HikariConfig config = new HikariConfig();
        registry.ifPresent(config::setMetricRegistry);
        config.setJdbcUrl(settings.jdbcUrl());
        settings.user().ifPresent(config::setUsername);
        settings.password().ifPresent(config::setPassword);
        config.setMaximumPoolSize(settings.poolSize());
        config.setAutoCommit(false);
        config.setPoolName("lockstep");
        // PostgreSQL's own choice, whatever the server's default: a statement's cached generic plan
        // once it costs no more than planning each execution would, which saves about a quarter of
        // the database's time per batch (bench --store, docs/benchmarks.md). Every table starts
        // empty, and a generic plan made then would scan it after it has grown (request_log read
        // 20 M rows in a 10 s benchmark, when custom plans were forced for that reason): the worker
        // gives each hot table statistics once it has 1,000 changes (TableStatistics), and new
        // statistics make PostgreSQL plan its statements again.
        // And a commit is durable before it returns, whatever the server's default: the worker
        // publishes a batch's replies after its commit, so a commit lost in a crash would be a
        // grant the database forgot and the caller was told of.
        config.setConnectionInitSql("SET plan_cache_mode = auto; SET synchronous_commit = on; "
                + settings.timeouts().sessionSql());
        // Committed when set: HikariCP otherwise leaves its own statements in an open transaction
        // when auto-commit is off, so the settings would be undone by the session's first rollback
        // (a ping, a failed batch), and a spare session would sit idle in that transaction until
        // the idle timeout above ended it (StoreSessionsIT).
        config.setIsolateInternalQueries(true);
        // As strings: the driver reads its properties with getProperty, which skips any other type.
        config.addDataSourceProperty("socketTimeout", Integer.toString(settings.timeouts().socketSeconds()));
        config.addDataSourceProperty("tcpKeepAlive", "true");
        // What an operator (and FrozenDatabaseIT) finds the worker's sessions by in pg_stat_activity.
        config.addDataSourceProperty("ApplicationName", APPLICATION_NAME);
        // Fail fast at start with a clear message instead of waiting 30 s for a pool that cannot fill.
        config.setInitializationFailTimeout(5_000);
        // A batch that cannot get a connection soon fails, is logged, and is retried with backoff:
        // an outage shows in the log within seconds instead of hiding in a pool queue.
        config.setConnectionTimeout(3_000);
        // A pooled connection whose server stopped answering (a frozen backend, a half-open TCP
        // connection) is found out by the check HikariCP makes before handing out a connection idle
        // for a while: a healthy one answers in milliseconds, so one second costs nothing.
        config.setValidationTimeout(1_000);
        // A connection dropped at start (a database restart, a terminated backend) must not keep a
        // worker from starting: a few more tries, then a clear message.
        for (int attempt = 1; ; attempt++) {
            try {
                return new PostgresLockStore(connectAndMigrate(config, settings));
            } catch (StoreException e) {
                if (attempt == OPEN_ATTEMPTS || !droppedConnection(e)) {
                    throw e; // a wrong URL, a refused connection or bad credentials are said at once
                }
                try {
                    Thread.sleep(500L * attempt);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /** A connection the server ended (terminated, shutting down) or that broke: worth another try. */
    private static boolean droppedConnection(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null
                    && (sql.getSQLState().startsWith("57P") || sql.getSQLState().equals("08003")
                            || sql.getSQLState().equals("08006"))) {
                return true;
            }
            // HikariCP reports a connection the server ended under it without an SQL state.
            if (cause instanceof SQLException && "Connection is closed".equals(cause.getMessage())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Connections of their own for the migrations: the pool's timeouts are a batch's, and a
     * migration of a large table may rightly take minutes; a server that hangs still fails the
     * start, after {@link LongStatements#BOUND}.
     */
    private static DataSource migrations(DatabaseSettings settings) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(settings.jdbcUrl());
        settings.user().ifPresent(dataSource::setUser);
        settings.password().ifPresent(dataSource::setPassword);
        dataSource.setConnectTimeout(10);
        // The server cancels a statement at the bound, before the socket gives up on it.
        dataSource.setOptions("-c statement_timeout=" + LongStatements.BOUND.toMillis());
        dataSource.setSocketTimeout((int) LongStatements.BOUND.plusSeconds(30).toSeconds());
        dataSource.setTcpKeepAlive(true);
        dataSource.setApplicationName(APPLICATION_NAME);
        return dataSource;
    }

    private static HikariDataSource connectAndMigrate(HikariConfig config, DatabaseSettings settings) {
        HikariDataSource dataSource;
        try {
            dataSource = new HikariDataSource(config);
        } catch (RuntimeException e) {
            throw new StoreException("cannot connect to PostgreSQL at " + DatabaseSettings.redact(settings.jdbcUrl())
                    + ": " + rootMessage(e), e);
        }
        try {
            Flyway.configure().dataSource(migrations(settings)).load().migrate();
            return dataSource;
        } catch (FlywayException e) {
            dataSource.close();
            throw new StoreException("migrating the lockstep schema failed: " + rootMessage(e), e);
        }
    }

    @Override
    public <T> T inPartition(PartitionId partition, Function<PartitionTransaction, T> work) {
        try (Connection connection = dataSource.getConnection()) {
            try {
                T result = work.apply(new PostgresPartitionTransaction(connection, partition, checkpointed));
                connection.commit();
                return result;
            } catch (RuntimeException | SQLException e) {
                rollbackQuietly(connection, e);
                // The retry gets a connection of its own: this one's server may be the trouble (a
                // frozen backend, a half-open connection); a new one costs a millisecond.
                dataSource.evictConnection(connection);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException("batch on " + partition + " failed: " + e.getMessage(), e);
        }
    }

    // Log time only: a lease that ended longer than its partition's request retention before the
    // partition's clock, and a request entry older than that, cannot change any later record's
    // reply or event; an event below the acknowledged offset is never published again. SKIP
    // LOCKED: a row a batch is deciding on right now is left for the next sweep, so the sweeper
    // never waits for, or blocks, the hot path. Each statement walks every partition's own index
    // range (LATERAL, oldest first) up to the limit: joined with partition_progress as a whole,
    // PostgreSQL could not estimate how many rows the partition's clock leaves behind and scanned
    // the whole table on every sweep, deletable rows or not.
    static final String SWEEP_LEASES =
            "DELETE FROM distributed_locks d USING (SELECT l.resource, l.permit FROM partition_progress p CROSS JOIN "
                    + "LATERAL (SELECT l.resource, l.permit FROM distributed_locks l WHERE l.topic = p.topic "
                    + "AND l.partition = p.partition "
                    + "AND l.expires_at <= p.last_now - p.request_retention_ms * interval '1 millisecond' "
                    + "ORDER BY l.expires_at LIMIT ? FOR UPDATE SKIP LOCKED) l LIMIT ?) doomed "
                    + "WHERE d.resource = doomed.resource AND d.permit = doomed.permit";
    static final String SWEEP_EVENTS =
            "DELETE FROM lease_events e USING (SELECT v.topic, v.partition, v.record_offset, v.event_index "
                    + "FROM partition_progress p CROSS JOIN LATERAL (SELECT v.topic, v.partition, v.record_offset, "
                    + "v.event_index FROM lease_events v WHERE v.topic = p.topic AND v.partition = p.partition "
                    + "AND v.record_offset < p.acked_offset ORDER BY v.record_offset LIMIT ? FOR UPDATE SKIP LOCKED) v "
                    + "LIMIT ?) doomed WHERE e.topic = doomed.topic AND e.partition = doomed.partition "
                    + "AND e.record_offset = doomed.record_offset AND e.event_index = doomed.event_index";
    static final String SWEEP_DEFERRED_REPLIES =
            "DELETE FROM deferred_replies e USING (SELECT v.topic, v.partition, v.record_offset, v.reply_index "
                    + "FROM partition_progress p CROSS JOIN LATERAL (SELECT v.topic, v.partition, v.record_offset, "
                    + "v.reply_index FROM deferred_replies v WHERE v.topic = p.topic AND v.partition = p.partition "
                    + "AND v.record_offset < p.acked_offset ORDER BY v.record_offset LIMIT ? FOR UPDATE SKIP LOCKED) v "
                    + "LIMIT ?) doomed WHERE e.topic = doomed.topic AND e.partition = doomed.partition "
                    + "AND e.record_offset = doomed.record_offset AND e.reply_index = doomed.reply_index";
    // "applied_at > '-infinity'" (every entry) is the retention index's predicate (V7): it lets this
    // statement use the index, which a batch's request lookup cannot.
    static final String SWEEP_REQUESTS =
            "DELETE FROM request_log r USING (SELECT q.topic, q.partition, q.request_id "
                    + "FROM partition_progress p CROSS JOIN LATERAL (SELECT q.topic, q.partition, q.request_id "
                    + "FROM request_log q WHERE q.topic = p.topic AND q.partition = p.partition "
                    + "AND q.applied_at > '-infinity' "
                    + "AND q.applied_at <= p.last_now - p.request_retention_ms * interval '1 millisecond' "
                    + "ORDER BY q.applied_at LIMIT ? FOR UPDATE SKIP LOCKED) q LIMIT ?) doomed "
                    + "WHERE r.topic = doomed.topic AND r.partition = doomed.partition AND r.request_id = doomed.request_id";

    @Override
    public SweepResult sweep(int limit) {
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement leases = connection.prepareStatement(SWEEP_LEASES);
                    PreparedStatement requests = connection.prepareStatement(SWEEP_REQUESTS);
                    PreparedStatement events = connection.prepareStatement(SWEEP_EVENTS);
                    PreparedStatement deferred = connection.prepareStatement(SWEEP_DEFERRED_REPLIES)) {
                int removedLeases = sweepUpTo(leases, limit);
                int removedRequests = sweepUpTo(requests, limit);
                // A waiter's reply is published with its record's events, and goes with them.
                int removedEvents = sweepUpTo(events, limit) + sweepUpTo(deferred, limit);
                connection.commit();
                return new SweepResult(removedLeases, removedRequests, removedEvents);
            } catch (SQLException e) {
                rollbackQuietly(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StoreException("sweeping ended leases, old request entries and published events failed: " + e.getMessage(), e);
        }
    }

    /** Runs a sweep statement: at most {@code limit} rows of a partition, and of all of them. */
    private static int sweepUpTo(PreparedStatement sweep, int limit) throws SQLException {
        sweep.setInt(1, limit);
        sweep.setInt(2, limit);
        return sweep.executeUpdate();
    }

    @Override
    public boolean refreshTableStatistics() {
        try (Connection connection = dataSource.getConnection()) {
            boolean current = TableStatistics.analyzeOutgrown(connection);
            connection.commit();
            return current;
        } catch (SQLException e) {
            throw new StoreException("analyzing the hot tables failed: " + e.getMessage(), e);
        }
    }

    @Override
    public Map<Integer, Long> waiters(String topic) {
        return TopicQueries.waiters(dataSource, topic);
    }

    @Override
    public Map<Integer, Instant> leasesEndingBy(String topic, Collection<Integer> partitions, Instant by) {
        return TopicQueries.endingBy(dataSource, topic, partitions, by);
    }

    @Override
    public Map<Integer, Quarantine> quarantines(String topic) {
        return TopicQueries.quarantines(dataSource, topic);
    }

    @Override
    public Map<Integer, Long> partitionsWithTimeToKeep(String topic, Set<Integer> partitions) {
        return TopicQueries.withTimeToKeep(dataSource, topic, partitions);
    }

    @Override
    public List<DueHandOver> handOversDue(String topic, Collection<Integer> partitions) {
        return TopicQueries.handOversDue(dataSource, topic, partitions);
    }

    @Override
    public void ping() {
        try (Connection connection = dataSource.getConnection()) {
            if (!connection.isValid(2)) {
                throw new StoreException("the connection did not answer within 2 s", null);
            }
            connection.rollback();
        } catch (SQLException e) {
            throw new StoreException(e.getMessage(), e);
        }
    }

    @Override
    public long liveLeases(String topic) {
        return TopicQueries.count(dataSource, TopicQueries.LIVE_LEASES, topic, "counting live leases");
    }

    @Override
    public long liveSharedLeases(String topic) {
        return TopicQueries.count(dataSource, TopicQueries.LIVE_SHARED_LEASES, topic, "counting live shared leases");
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

    @Override
    public Map<Integer, Layout> layouts(String topic) {
        return GrowthRows.layouts(dataSource, topic);
    }

    @Override
    public List<TopicGrowth> growths(String topic) {
        return GrowthRows.growths(dataSource, topic);
    }

    @Override
    public TopicGrowth startGrowth(String topic, int from, int to) {
        return GrowthRows.start(dataSource, topic, from, to);
    }

    @Override
    public void growthFinished(String topic, int from) {
        GrowthRows.finished(dataSource, topic, from);
    }

    @Override
    public List<PendingTransfer> transfersDue(String topic, Collection<Integer> partitions) {
        return GrowthRows.due(dataSource, topic, partitions);
    }

    @Override
    public void transfersSent(String topic, Collection<PendingTransfer> sent) {
        GrowthRows.sent(dataSource, topic, sent);
    }
}
