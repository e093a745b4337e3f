package dev.lockstep.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** The PostgreSQL a host runs for the tests (LOCKSTEP_TEST_DB_URL), as the host manages it. */
final class LocalPostgres {

    private LocalPostgres() {
    }

    /**
     * Restarts the local cluster with {@code pg_ctlcluster} (our CI and Debian hosts), or runs
     * {@code LOCKSTEP_TEST_PG_RESTART} where PostgreSQL is managed otherwise.
     */
    static void restart() {
        String custom = System.getenv("LOCKSTEP_TEST_PG_RESTART");
        List<String> command;
        try {
            if (custom != null) {
                command = List.of("sh", "-c", custom);
            } else {
                Path clusters = Path.of("/etc/postgresql");
                if (!Files.isDirectory(clusters)) {
                    throw new IllegalStateException("cannot restart PostgreSQL: no /etc/postgresql here. Set "
                            + "LOCKSTEP_TEST_PG_RESTART to a shell command that restarts the server the tests use, or "
                            + "unset LOCKSTEP_TEST_DB_URL to use an embedded PostgreSQL.");
                }
                String version;
                try (Stream<Path> versions = Files.list(clusters)) {
                    version = versions.map(p -> p.getFileName().toString()).sorted().reduce((a, b) -> b).orElseThrow();
                }
                command = List.of("pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart");
            }
            Process restart = new ProcessBuilder(command).inheritIO().start();
            if (!restart.waitFor(60, TimeUnit.SECONDS) || restart.exitValue() != 0) {
                throw new IllegalStateException("restarting PostgreSQL failed: " + command);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restart PostgreSQL", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting PostgreSQL", e);
        }
    }
}
