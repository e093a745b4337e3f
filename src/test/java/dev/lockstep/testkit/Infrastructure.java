package dev.lockstep.testkit;

import dev.lockstep.embedded.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * The broker and the PostgreSQL server shared by every integration test of one JVM.
 *
 * <p>Where a Docker engine answers, Testcontainers starts Apache Kafka and PostgreSQL. Where none
 * does (our CI), a real KRaft broker starts in this JVM and the tests use the PostgreSQL at
 * {@code LOCKSTEP_TEST_DB_URL} (default {@code 127.0.0.1:5432}). {@code LOCKSTEP_TEST_INFRA}
 * set to {@code embedded} or {@code docker} forces one. Nothing is ever skipped: a missing
 * server fails the test with a message that says what to start.
 */
final class Infrastructure implements AutoCloseable {

    static final String DEFAULT_DB_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";

    private final String bootstrapServers;
    private final String adminJdbcUrl;
    private final AutoCloseable[] resources;

    /** @param adminJdbcUrl carries its credentials, so that every URL derived from it does too */
    private Infrastructure(String bootstrapServers, String adminJdbcUrl, AutoCloseable... resources) {
        this.bootstrapServers = bootstrapServers;
        this.adminJdbcUrl = adminJdbcUrl;
        this.resources = resources;
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
        KafkaContainer kafka = new KafkaContainer("apache/kafka:4.1.0");
        PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:15");
        kafka.start();
        postgres.start();
        String url = postgres.getJdbcUrl() + (postgres.getJdbcUrl().contains("?") ? "&" : "?")
                + "user=" + postgres.getUsername() + "&password=" + postgres.getPassword();
        return new Infrastructure(kafka.getBootstrapServers(), url, kafka, postgres);
    }

    private static Infrastructure embedded() {
        String url = System.getenv().getOrDefault("LOCKSTEP_TEST_DB_URL", DEFAULT_DB_URL);
        try (Connection ignored = DriverManager.getConnection(url)) {
            // reachable
        } catch (SQLException e) {
            throw new IllegalStateException("integration tests need PostgreSQL, and none answers at " + url + " ("
                    + e.getMessage() + "). Start it (e.g. pg_ctlcluster --skip-systemctl-redirect 15 main start), "
                    + "set LOCKSTEP_TEST_DB_URL to one that runs, or start a Docker engine for Testcontainers.", e);
        }
        EmbeddedKafka kafka;
        try {
            kafka = EmbeddedKafka.start(0, Files.createTempDirectory("lockstep-it-kafka-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Infrastructure(kafka.bootstrapServers(), url, kafka);
    }

    String bootstrapServers() {
        return bootstrapServers;
    }

    Connection adminConnection() throws SQLException {
        return DriverManager.getConnection(adminJdbcUrl);
    }

    /** The JDBC URL of another database on the same server. */
    String urlOf(String database) {
        return adminJdbcUrl.replaceFirst("(jdbc:postgresql://[^/]+/)[^?]*", "$1" + database);
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable resource : resources) {
            resource.close();
        }
    }
}
