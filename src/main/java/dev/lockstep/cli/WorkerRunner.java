package dev.lockstep.cli;

import dev.lockstep.http.OpsServer;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.worker.ApplyMode;
import dev.lockstep.worker.Worker;
import dev.lockstep.worker.WorkerSettings;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Runs a worker in the foreground until SIGTERM or Ctrl-C; shared by {@code worker} and {@code dev}. */
final class WorkerRunner {

    private static final Logger LOG = LoggerFactory.getLogger(WorkerRunner.class);

    /** Where the operations endpoints listen. */
    record HttpEndpoint(String host, int port) {
    }

    private WorkerRunner() {
    }

    static int run(WorkerSettings settings, DatabaseSettings database, Optional<HttpEndpoint> http) {
        LOG.info("database: {}", database);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        try (JvmGcMetrics gc = new JvmGcMetrics();
                LockStore store = PostgresLockStore.open(database, registry);
                Worker worker = Worker.connect(settings, store, Clock.systemUTC(), ApplyMode.BATCH, registry)) {
            gc.bindTo(registry);
            worker.checkTopics();
            Signals.onTerminate(() -> {
                LOG.info("stop requested; finishing the batch in hand");
                worker.stop();
            });
            if (http.isEmpty()) {
                worker.run();
                return ExitCodes.OK;
            }
            try (OpsServer server = OpsServer.start(http.get().host(), http.get().port(), registry, worker.health())) {
                LOG.info("HTTP on {}:{}: /metrics, /health/live, /health/ready", http.get().host(), server.port());
                worker.run();
            }
        }
        return ExitCodes.OK;
    }
}
