package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.embedded.EmbeddedPostgres;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar as a new user runs it, with nothing but a JDK: {@code lockstep dev} without
 * {@code --db-url} starts its own PostgreSQL (which refuses root, so as root this test runs dev as
 * {@code nobody}) and says it is ready; a new user's commands, given no connection flags, find it
 * (acquire, locks, audit, replay, dlq); the lock is still held after a restart; {@code --fresh}
 * starts empty. No Kafka warning at start or stop, nothing left in its temporary
 * directory.
 */
class DevJarIT {

    private static final Path JAR = Path.of("..", "target", "lockstep.jar").toAbsolutePath().normalize();
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

    /** A dev process, its standard output as lines, and its standard error in a file. */
    private record Dev(Process process, BlockingQueue<String> out, Path err) {

        String awaitReady() throws InterruptedException {
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                String line = out.poll(1, TimeUnit.SECONDS);
                if (line != null && line.startsWith("lockstep dev ready")) {
                    return line;
                }
                assertThat(process.isAlive()).as("dev is running (its stderr: %s)", err).isTrue();
            }
            throw new AssertionError("dev said no ready line within " + READY_TIMEOUT + "; its stderr: " + err);
        }

        void stop() throws InterruptedException {
            process.destroy();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("dev stops on SIGTERM").isTrue();
            assertThat(process.exitValue()).isZero();
        }
    }

    @Test
    void devWithoutADatabaseUrlRunsItsOwnPostgresAndKeepsLocksAcrossARestart(@TempDir Path tmp) throws Exception {
        assertThat(JAR).as("mvn package builds the jar before the integration tests").isRegularFile();
        // The user's home: readable and writable by the user dev runs as, the jar among its files.
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path jar = Files.copy(JAR, tmp.resolve("lockstep.jar"), StandardCopyOption.REPLACE_EXISTING);
        Path scratch = Files.createDirectory(tmp.resolve("tmp"));
        Files.setPosixFilePermissions(scratch, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path data = tmp.resolve("data");
        List<String> args = List.of("dev", "--data-dir", data.toString(), "--kafka-port", Integer.toString(freePort()),
                "--http-port", Integer.toString(freePort()), "--db-port", Integer.toString(freePort()));

        // The other commands are given no connection flags: they find dev through its data directory.
        Map<String, String> user = Map.of("LOCKSTEP_DATA_DIR", data.toString());
        Dev first = start(jar, scratch, args, tmp.resolve("dev-1.stderr"));
        String ready = first.awaitReady();
        assertThat(ready).contains("database jdbc:postgresql://127.0.0.1:").contains("(embedded)").contains("http http://");
        CliRun acquired = CliRun.of(user, "acquire", "payment:42", "--owner", "worker-1", "--ttl", "600");
        assertThat(acquired.exitCode()).as(acquired.err()).isZero();
        assertThat(acquired.json().path("outcome").asText()).isEqualTo("acquired");
        long token = acquired.json().path("lock").path("fencing_token").asLong();

        CliRun locks = CliRun.of(user, "locks", "--format", "json");
        assertThat(locks.exitCode()).as(locks.err()).isZero();
        assertThat(locks.err()).as("says whose database it read").contains("reading the database of lockstep dev")
                .contains(data.resolve(DevConnection.FILE_NAME).toString());
        assertThat(locks.json().path("leases").get(0).path("owner").asText()).isEqualTo("worker-1");
        CliRun audit = CliRun.of(user, "audit", "payment:42");
        assertThat(audit.exitCode()).as(audit.err()).isZero();
        assertThat(audit.out()).contains("worker-1");
        CliRun replay = CliRun.of(user, "replay");
        // dev runs on, ticking the partition of the lease it holds: that partition's rows may trail
        // the log by a tick, which replay says it could not compare (exit code 2); nothing diverges.
        assertThat(replay.exitCode()).as(replay.out() + replay.err()).isIn(0, 2);
        assertThat(replay.out()).contains("0 divergences");
        assertThat(replay.out().lines().filter(line -> line.startsWith("cannot verify")))
                .allMatch(line -> line.contains("a worker is running"));
        assertThat(replay.err()).contains("reading the database of lockstep dev");
        CliRun dlq = CliRun.of(user, "dlq");
        assertThat(dlq.exitCode()).as(dlq.err()).isZero();
        assertThat(dlq.out()).isEmpty();
        assertThat(dlq.err()).contains("no dead letters in lock.commands.dlq");
        first.stop();
        assertThat(data.resolve("postgres").resolve("postmaster.pid")).as("PostgreSQL stopped with dev").doesNotExist();
        assertThat(data.resolve(DevConnection.FILE_NAME)).as("dev's connection file goes with it").doesNotExist();
        CliRun noDev = CliRun.of(user, "locks");
        assertThat(noDev.err()).as("with no dev running, locks says so (or reads the default database)")
                .containsAnyOf("Start `lockstep dev`", "no lockstep dev running");

        Dev second = start(jar, scratch, args, tmp.resolve("dev-2.stderr"));
        second.awaitReady();
        CliRun status = CliRun.of(user, "status", "payment:42");
        assertThat(status.json().path("outcome").asText()).isEqualTo("locked");
        assertThat(status.json().path("lock").path("fencing_token").asLong()).isEqualTo(token);
        second.stop();

        List<String> fresh = new ArrayList<>(args);
        fresh.add("--fresh");
        Dev third = start(jar, scratch, fresh, tmp.resolve("dev-3.stderr"));
        third.awaitReady();
        assertThat(CliRun.of(user, "status", "payment:42").json().path("outcome").asText())
                .as("--fresh starts with an empty broker and database").isEqualTo("not_found");
        third.stop();

        for (String run : List.of("dev-1.stderr", "dev-2.stderr", "dev-3.stderr")) {
            assertThat(Files.readAllLines(tmp.resolve(run))).as(run).noneMatch(line -> line.contains(" WARN ")
                    || line.contains(" ERROR "));
        }
        try (Stream<Path> left = Files.list(scratch)) {
            assertThat(left.map(p -> p.getFileName().toString()).filter(name -> !name.startsWith("hsperfdata")))
                    .as("dev leaves nothing in its temporary directory").isEmpty();
        }
    }

    /** Starts {@code java -jar lockstep.jar ARGS}; as root, as {@code nobody}, since PostgreSQL refuses root. */
    private static Dev start(Path jar, Path scratch, List<String> args, Path err) throws IOException {
        List<String> command = new ArrayList<>();
        if (EmbeddedPostgres.runningAsRoot()) {
            command.addAll(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
        }
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + scratch, "-jar", jar.toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(jar.getParent().toFile())
                .redirectError(err.toFile());
        builder.environment().remove("LOCKSTEP_DB_URL");
        builder.environment().remove("LOCKSTEP_LOG_LEVEL");
        Process process = builder.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)).lines().forEach(lines::add), "dev-stdout");
        reader.setDaemon(true);
        reader.start();
        return new Dev(process, lines, err);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        }
    }
}
