package dev.lockstep.cli;

import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.worker.Worker;
import dev.lockstep.worker.WorkerSettings;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a worker in the foreground until SIGTERM or Ctrl-C; shared by {@code worker} and {@code dev}. */
final class WorkerRunner {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerRunner.class);

    private WorkerRunner() {
    }

    static int run(WorkerSettings settings, DatabaseSettings database) {
        LOG.info("database: {}", database);
        try (LockStore store = PostgresLockStore.open(database);
                Worker worker = Worker.connect(settings, store, Clock.systemUTC())) {
            worker.checkTopics();
            Signals.onTerminate(() -> {
                LOG.info("stop requested; finishing the batch in hand");
                worker.stop();
            });
            worker.run();
        }
        return ExitCodes.OK;
    }
}
