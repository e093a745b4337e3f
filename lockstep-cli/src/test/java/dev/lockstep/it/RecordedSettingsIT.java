package dev.lockstep.it;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.Limits;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.Worker;
import dev.lockstep.worker.WorkerSettings;
import dev.lockstep.worker.WorkerStartException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The settings that decide replies are recorded with each partition: a worker with other settings
 * refuses to apply, naming the difference, unless told to record its own from the next offset on.
 */
class RecordedSettingsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Limits SHORT_TTL = new Limits(Duration.ofSeconds(60), Limits.DEFAULT_MAX_VALUE_BYTES);

    @Test
    void aWorkerWithOtherSettingsRefusesUnlessTheChangeIsAccepted() throws Exception {
        try (RunningWorker first = env.startWorker()) {
            assertThat(env.call(acquire(newId(), "settled", "a", 3600)).path("outcome").asText()).isEqualTo("acquired");
        }

        WorkerStartException refusal = runUntilRefused(env.workerSettings().withLimits(SHORT_TTL, false));
        assertThat(refusal.kind()).isEqualTo(WorkerStartException.Kind.SETTINGS_DIFFER);
        assertThat(refusal.getMessage()).contains("max_ttl_seconds: recorded 86400, this worker 60")
                .contains("--accept-settings-change");

        try (RunningWorker changed = env.startWorker(env.workerSettings().withLimits(SHORT_TTL, true))) {
            assertThat(env.call(acquire(newId(), "settled-2", "a", 61)).path("problem").path("detail").asText())
                    .contains("ttl_seconds: must be a JSON integer from 1 to 60");
        }
        assertThat(count("SELECT count(*) FROM partition_epochs WHERE reason LIKE 'settings changed from offset%'"))
                .isEqualTo(LockstepExtension.PARTITIONS);
        assertThat(count("SELECT count(*) FROM partition_progress WHERE settings LIKE '%max_ttl_seconds=60%'"))
                .isEqualTo(LockstepExtension.PARTITIONS);
    }

    private static WorkerStartException runUntilRefused(WorkerSettings settings) throws Exception {
        try (LockStore store = PostgresLockStore.open(env.database());
                Worker worker = Worker.connect(settings, store, Clock.systemUTC(), new SimpleMeterRegistry())) {
            worker.checkTopics();
            CompletableFuture<Void> running = CompletableFuture.runAsync(worker::run);
            try {
                running.get(60, TimeUnit.SECONDS);
                throw new AssertionError("the worker ran and stopped without refusing");
            } catch (ExecutionException e) {
                assertThat(e.getCause()).isInstanceOf(WorkerStartException.class);
                return (WorkerStartException) e.getCause();
            }
        }
    }

    private static long count(String sql) throws Exception {
        try (Connection c = env.jdbc(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
