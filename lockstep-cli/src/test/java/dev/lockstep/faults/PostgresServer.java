package dev.lockstep.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of the test's own, from the host's binaries (Debian's
 * {@code /usr/lib/postgresql/<version>/bin}): a primary made with {@code initdb}, or a streaming
 * standby of one made with {@code pg_basebackup}. As root it runs as the {@code postgres} user,
 * since PostgreSQL refuses to run as root.
 */
final class PostgresServer implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final int port;

    private PostgresServer(Path bin, Path dir, int port) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
    }

    /** A new cluster that streams its WAL to standbys, started. */
    static PostgresServer primary() {
        Path bin = binaries();
        PostgresServer server = new PostgresServer(bin, ownedDirectory("lockstep-primary-"), freePort());
        server.run(bin.resolve("initdb").toString(), "-D", server.dir.toString(), "--auth=trust", "-U", "postgres",
                "--no-sync");
        server.start();
        return server;
    }

    /** A standby streaming from {@code primary}, started. */
    static PostgresServer standbyOf(PostgresServer primary) {
        PostgresServer standby = new PostgresServer(primary.bin, ownedDirectory("lockstep-standby-"), freePort());
        standby.run(primary.bin.resolve("pg_basebackup").toString(), "-h", "127.0.0.1", "-p",
                Integer.toString(primary.port), "-U", "postgres", "-D", standby.dir.toString(), "-R", "-X", "stream",
                // An immediate checkpoint: a spread one waited a minute and a half here.
                "--checkpoint=fast");
        standby.start();
        return standby;
    }

    /**
     * Makes every commit on this primary wait until a standby has flushed it to disk
     * ({@code synchronous_standby_names = '*'}, with the default {@code synchronous_commit = on}),
     * once a standby streams as a synchronous one.
     */
    void replicateSynchronously() throws SQLException {
        try (Connection connection = connect("postgres"); Statement st = connection.createStatement()) {
            st.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
            st.execute("SELECT pg_reload_conf()");
        }
    }

    int port() {
        return port;
    }

    String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(jdbcUrl(database));
    }

    private void start() {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.toString(), "-l", dir.resolve("server.log").toString(), "-w",
                "-o", "-p " + port + " -c listen_addresses=127.0.0.1 -c unix_socket_directories=" + dir
                        + " -c wal_level=replica -c max_wal_senders=4 -c fsync=off", "start");
    }

    /** Ends recovery: the standby takes writes from here on, with what it had received. */
    void promote() {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.toString(), "-w", "promote");
    }

    /** Stops at once, as a machine that is lost (no checkpoint, no goodbye to clients). */
    void crash() {
        run(bin.resolve("pg_ctl").toString(), "-D", dir.toString(), "-m", "immediate", "stop");
    }

    @Override
    public void close() throws IOException {
        if (Files.exists(dir.resolve("postmaster.pid"))) {
            crash();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    private static Path binaries() {
        Path lib = Path.of("/usr/lib/postgresql");
        try (Stream<Path> versions = Files.isDirectory(lib) ? Files.list(lib) : Stream.empty()) {
            return versions.map(v -> v.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("pg_basebackup")))
                    .max(Comparator.comparing(b -> Integer.parseInt(b.getParent().getFileName().toString())))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL server binaries (initdb, pg_ctl, "
                            + "pg_basebackup) under /usr/lib/postgresql: install Debian's postgresql package"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean root() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** A fresh directory the server's user owns, with nothing else allowed in (PostgreSQL insists). */
    private static Path ownedDirectory(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            if (root()) {
                exec(List.of("chown", "postgres:postgres", dir.toString()));
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void run(String... command) {
        List<String> full = new ArrayList<>();
        if (root()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(List.of(command));
        exec(full);
    }

    private static void exec(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes());
            if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + command, e);
        }
    }
}
