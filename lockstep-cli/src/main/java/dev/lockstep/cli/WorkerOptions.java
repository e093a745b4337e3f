package dev.lockstep.cli;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.CheckpointPolicy;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.worker.Retention;
import dev.lockstep.worker.WorkerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The worker's own settings: database, consumer group, reply allow-list, limits. */
final class WorkerOptions {

    @Mixin
    DatabaseOptions db;

    @Mixin
    DatabaseTimeoutOptions dbTimeouts;

    @Option(names = "--stall-timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "/health/live fails when a partition's records have waited this long for their batch to "
                    + "commit (a database that hangs or keeps failing). Default: ${DEFAULT-VALUE}.")
    long stallTimeoutSeconds;

    @Option(names = "--transaction-limit", paramLabel = "SECONDS", defaultValue = "5",
            description = "A producer's transaction open this long on a command partition is aborted: the worker reads "
                    + "committed records only, so an open transaction holds up every lock of its partition. "
                    + "0: never abort. Default: ${DEFAULT-VALUE}.")
    long transactionLimitSeconds;

    @Option(names = "--db-pool-size", defaultValue = "13", description = "Database connections. Default: ${DEFAULT-VALUE}.")
    int dbPoolSize;

    @Option(names = "--apply-threads", defaultValue = "12", description = "Partition batches applied side by side, "
            + "each on its own connection (keep it below --db-pool-size). Default: ${DEFAULT-VALUE}.")
    int applyThreads;

    @Option(names = "--group-id", defaultValue = WorkerSettings.DEFAULT_GROUP, description = "Default: ${DEFAULT-VALUE}.")
    String groupId;

    @Option(names = "--reply-allow-list", split = ",", paramLabel = "TOPIC[*]",
            defaultValue = "lock.replies,lock.replies.*",
            description = "Reply topics a command may ask for; a trailing * allows a prefix. Default: ${DEFAULT-VALUE}.")
    List<String> replyAllowList;

    @Option(names = "--max-ttl", paramLabel = "SECONDS", defaultValue = "86400",
            description = "Longest lease a command may ask for. Default: ${DEFAULT-VALUE}.")
    long maxTtlSeconds;

    @Option(names = "--max-value-bytes", defaultValue = "16384",
            description = "Larger command records are dead-lettered unread. Default: ${DEFAULT-VALUE}.")
    int maxValueBytes;

    @Option(names = "--request-retention", paramLabel = "SECONDS", defaultValue = "86400",
            description = "A request ID is remembered (retries answered, not re-applied) this long in log time; "
                    + "at least 300. Default: ${DEFAULT-VALUE}.")
    long requestRetentionSeconds;

    @Option(names = "--checkpoint-interval", paramLabel = "SECONDS", defaultValue = "21600",
            description = "Record each partition's state every this many seconds of log time, so that a replay can "
                    + "start there once the log's beginning is deleted (see docs/audit.md). Default: ${DEFAULT-VALUE}.")
    long checkpointIntervalSeconds;

    @Option(names = "--checkpoints-kept", paramLabel = "N", defaultValue = "28",
            description = "Checkpoints kept per partition; 0 records none. Default: ${DEFAULT-VALUE}.")
    int checkpointsKept;

    @Option(names = "--http-port", paramLabel = "PORT", description = "Serve /metrics, /health/live and "
            + "/health/ready on this port (docs/operations.md). Default: off for worker, 8080 for dev.")
    Integer httpPort;

    @Option(names = "--http-host", paramLabel = "HOST", description = "Address the HTTP port listens on. Default: "
            + "0.0.0.0 for worker, 127.0.0.1 for dev.")
    String httpHost;

    @Option(names = "--accept-settings-change", description = "When --max-ttl, --max-value-bytes, "
            + "--request-retention, --reply-allow-list or the reply topic differ from the settings recorded for a "
            + "partition, record these from the partition's next offset on instead of refusing to start.")
    boolean acceptSettingsChange;

    /** Where the HTTP endpoints listen, if anywhere: the flags, else the command's defaults. */
    Optional<WorkerRunner.HttpEndpoint> http(Optional<Integer> defaultPort, String defaultHost) {
        return Optional.ofNullable(httpPort).or(() -> defaultPort)
                .map(port -> new WorkerRunner.HttpEndpoint(httpHost != null ? httpHost : defaultHost, port));
    }

    DatabaseSettings database() {
        return db.settings(dbPoolSize).withTimeouts(dbTimeouts.timeouts());
    }

    /** The URL given by flag, environment or properties file, if any. */
    Optional<String> givenDatabaseUrl() {
        return db.givenUrl();
    }

    /** The database at {@code url} (dev's own), with the user, password and pool options. */
    DatabaseSettings database(String url) {
        return db.settings(url, dbPoolSize).withTimeouts(dbTimeouts.timeouts());
    }

    WorkerSettings worker(KafkaSettings kafka, TopicNames topics) {
        return new WorkerSettings(kafka, topics, groupId, new TopicAllowList(replyAllowList),
                new Limits(Duration.ofSeconds(maxTtlSeconds), maxValueBytes),
                new Retention(Duration.ofSeconds(requestRetentionSeconds), Retention.DEFAULT.interval(),
                        Retention.DEFAULT.batchSize()),
                applyThreads, acceptSettingsChange,
                new CheckpointPolicy(Duration.ofSeconds(checkpointIntervalSeconds), checkpointsKept),
                Duration.ofSeconds(stallTimeoutSeconds), Duration.ofSeconds(transactionLimitSeconds));
    }
}
