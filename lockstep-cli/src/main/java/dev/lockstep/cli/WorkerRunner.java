package dev.lockstep.cli;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.http.LockGateway;
import dev.lockstep.http.OpsServer;
import dev.lockstep.metrics.ProcessMetrics;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.worker.Worker;
import dev.lockstep.worker.WorkerSettings;
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

    /** Told once, when the worker first owns and has positioned its partitions: the HTTP URL, if any. */
    @FunctionalInterface
    interface Ready {
        void announce(Optional<String> httpUrl);

        Ready SILENT = url -> { };
    }

    private WorkerRunner() {
    }

    /**
     * @param gateway the lock API's client, served on the HTTP port beside the worker's endpoints ({@code dev})
     */
    static int run(WorkerSettings settings, DatabaseSettings database, Optional<HttpEndpoint> http,
            Optional<LockClientSettings> gateway, Ready ready) {
        // An unreachable cluster is one line after 15 s, not clients retrying and warning for minutes.
        KafkaReach.require(settings.kafka());
        LOG.info("database: {}", database);
        try (ProcessMetrics metrics = new ProcessMetrics();
                LockStore store = PostgresLockStore.open(database, metrics.registry());
                Worker worker = Worker.connect(settings, store, Clock.systemUTC(), metrics.registry())) {
            worker.checkTopics();
            Signals.onTerminate(() -> {
                LOG.info("stop requested; finishing the batch in hand");
                worker.stop();
            });
            if (http.isEmpty()) {
                watchReady(worker, ready, Optional.empty());
                worker.run();
                return ExitCodes.OK;
            }
            try (LockClient client = gateway.map(LockClient::start).orElse(null);
                    OpsServer server = OpsServer.start(http.get().host(), http.get().port(), metrics.registry(),
                            Optional.of(worker.health()), Optional.ofNullable(client).map(c -> new LockGateway(c,
                                    gateway.get().requestTimeout())))) {
                LOG.info("HTTP on {}:{}: /metrics, /health/live, /health/ready{}", http.get().host(), server.port(),
                        client == null ? "" : ", /locks/{resource}");
                watchReady(worker, ready, Optional.of("http://" + http.get().host() + ":" + server.port()));
                worker.run();
            }
        }
        return ExitCodes.OK;
    }

    /** Announces readiness once, from a daemon thread that asks the worker's health until it is ready. */
    private static void watchReady(Worker worker, Ready ready, Optional<String> httpUrl) {
        if (ready == Ready.SILENT) {
            return;
        }
        Thread watcher = new Thread(() -> {
            try {
                while (!worker.health().ready().ok()) {
                    Thread.sleep(100);
                }
                ready.announce(httpUrl);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "ready-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}
