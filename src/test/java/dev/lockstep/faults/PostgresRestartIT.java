package dev.lockstep.faults;

import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PostgreSQL restarted under load: the worker waits for it, loses nothing, grants nothing twice. */
class PostgresRestartIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aRestartedServerIsWaitedFor() throws Exception {
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "PostgreSQL restarted")) {
            env.startWorker(env.workerSettings().withGroupId("db-restart"));
            run.load().awaitPublished(600);
            restartPostgres();
            run.faultInjected();
            run.load().awaitPublished(1_500);
            run.check();
        }
    }

    /**
     * Restarts the local cluster with {@code pg_ctlcluster} (our CI and Debian hosts), or runs
     * {@code LOCKSTEP_TEST_PG_RESTART} where PostgreSQL is managed otherwise.
     */
    private static void restartPostgres() throws IOException, InterruptedException {
        String custom = System.getenv("LOCKSTEP_TEST_PG_RESTART");
        List<String> command;
        if (custom != null) {
            command = List.of("sh", "-c", custom);
        } else {
            Path clusters = Path.of("/etc/postgresql");
            if (!Files.isDirectory(clusters)) {
                throw new IllegalStateException("cannot restart PostgreSQL: no /etc/postgresql here. Set "
                        + "LOCKSTEP_TEST_PG_RESTART to a shell command that restarts the server the tests use.");
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
    }
}
