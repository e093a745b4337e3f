package dev.lockstep.cli;

import dev.lockstep.client.LockClientSettings;
import dev.lockstep.embedded.EmbeddedPostgres;
import dev.lockstep.http.OpsServer;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.DatabaseProbe;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpec;
import dev.lockstep.topics.TopicSpecs;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "dev", mixinStandardHelpOptions = true,
        description = {"Start a real Kafka broker and, unless --db-url names one, a PostgreSQL server in this process's "
                + "care, create the topics, and run the worker with the HTTP lock API. Stays up until Ctrl-C.",
                "Broker and database keep their data in --data-dir, so a restart keeps locks, topics and history; "
                        + "--fresh starts empty."})
final class DevCommand implements Callable<Integer> {

    static final int DEFAULT_HTTP_PORT = 8080;
    /** How long the HTTP lock API waits for a reply before answering 504. */
    static final Duration GATEWAY_TIMEOUT = Duration.ofSeconds(10);

    @Option(names = "--kafka-port", defaultValue = "9092", description = "Broker port on 127.0.0.1. Default: ${DEFAULT-VALUE}.")
    int kafkaPort;

    @Option(names = "--brokers", defaultValue = "1", description = "1: one broker in this process. 3: a cluster of "
            + "three brokers in child processes (each can be killed; dev starts it again after 10 s), topics with "
            + "three replicas, two in sync, on --kafka-port and the two ports after it. Default: ${DEFAULT-VALUE}.")
    int brokers;

    @Option(names = "--db-port", defaultValue = "54320", description = "The embedded PostgreSQL's port on 127.0.0.1 "
            + "(without --db-url). Default: ${DEFAULT-VALUE}.")
    int dbPort;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Where the broker (kafka/) and the embedded database (postgres/) keep their data, across "
                    + "runs. Default: ~/.lockstep/dev.")
    Path dataDir;

    @Option(names = "--fresh", description = "Start with an empty broker and database: delete what --data-dir holds "
            + "from earlier runs first.")
    boolean fresh;

    @Mixin
    WorkerOptions options;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Optional<String> givenUrl = options.givenDatabaseUrl();
        // Busy ports and an unusable database are said first, before a broker starts for nothing.
        if (brokers != 1 && brokers != 3) {
            throw new IllegalArgumentException("--brokers is 1 or 3, not " + brokers);
        }
        for (int port = kafkaPort; port < kafkaPort + brokers; port++) {
            OpsServer.requireFree("127.0.0.1", port, "--kafka-port");
        }
        options.http(Optional.of(DEFAULT_HTTP_PORT), "127.0.0.1")
                .ifPresent(http -> OpsServer.requireFree(http.host(), http.port(), "--http-port"));
        if (givenUrl.isEmpty()) {
            if (EmbeddedPostgres.runningAsRoot()) {
                throw new IllegalStateException("PostgreSQL refuses to run as root, so dev cannot start its embedded database: "
                        + "pass --db-url to use a running PostgreSQL, or run lockstep dev as a normal user");
            }
            OpsServer.requireFree("127.0.0.1", dbPort, "--db-port");
        } else {
            DatabaseProbe.reachable(options.database());
        }
        DevData data = DevData.at(dataDir != null ? dataDir : DevData.defaultDir(), fresh);
        PrintWriter out = spec.commandLine().getOut();
        try (Database database = givenUrl.isPresent() ? new Given(options.database()) : embedded(data, out);
                DevBrokers kafka = DevBrokers.start(brokers, kafkaPort, data.kafka(), out)) {
            KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
            List<TopicSpec> topics = TopicSpecs.builtIn().stream().map(t -> t.withReplicationFactor(kafka.replication()))
                    .toList();
            try (Admin admin = Admin.create(settings.with(Map.of()))) {
                new TopicApplier(admin).apply(topics).forEach(report -> out.println("topic " + report));
            }
            out.flush();
            DatabaseSettings db = database.settings();
            AtomicReference<DevConnection> connection = new AtomicReference<>();
            try {
                return WorkerRunner.run(options.worker(settings, TopicNames.DEFAULT), db,
                        options.http(Optional.of(DEFAULT_HTTP_PORT), "127.0.0.1"),
                        Optional.of(LockClientSettings.defaults(settings).withRequestTimeout(GATEWAY_TIMEOUT)), url -> {
                            // Where the CLI, given no connection flags, finds this dev (lockstep locks, replay, ...).
                            connection.set(DevConnection.write(data.root(), kafka.bootstrapServers(),
                                    new DevConnection.Database(db.jdbcUrl(), db.user(), db.password()), url));
                            out.println("lockstep dev ready: kafka " + kafka.bootstrapServers() + ", database "
                                    + database.described() + url.map(u -> ", http " + u).orElse(""));
                            out.println("Try, in another terminal: lockstep acquire payment:42 --owner worker-1 --ttl 30");
                            out.flush();
                        });
            } finally {
                Optional.ofNullable(connection.get()).ifPresent(DevConnection::close);
            }
        }
    }

    /** dev's database: the one the user named, or the one it runs itself. */
    private sealed interface Database extends AutoCloseable {

        DatabaseSettings settings();

        /** For the ready line: the URL without secrets, and whose it is. */
        String described();

        @Override
        void close();
    }

    private record Given(DatabaseSettings settings) implements Database {

        @Override
        public String described() {
            return DatabaseSettings.redact(settings.jdbcUrl());
        }

        @Override
        public void close() {
            // the user's server: theirs to stop
        }
    }

    private record Embedded(EmbeddedPostgres server, DatabaseSettings settings) implements Database {

        @Override
        public String described() {
            return server.jdbcUrl() + " (embedded)";
        }

        @Override
        public void close() {
            server.close();
        }
    }

    private Embedded embedded(DevData data, PrintWriter out) {
        EmbeddedPostgres server = EmbeddedPostgres.start(data.postgres(), data.postgresBinaries(), dbPort);
        out.println("PostgreSQL running at " + server.jdbcUrl() + " (data in " + server.dataDir() + ")");
        return new Embedded(server, options.database(server.jdbcUrl()));
    }
}
