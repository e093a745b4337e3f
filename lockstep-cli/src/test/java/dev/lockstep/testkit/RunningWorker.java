package dev.lockstep.testkit;

import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.worker.Worker;
import dev.lockstep.worker.WorkerHealth;
import dev.lockstep.worker.WorkerSettings;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;

/** A real worker on a thread of its own, with its own store; closing it stops it the way SIGTERM does. */
public final class RunningWorker implements AutoCloseable {

    private final LockStore store;
    private final Worker worker;
    private final MeterRegistry registry;
    private final Thread thread;
    private boolean closed;

    private RunningWorker(LockStore store, Worker worker, MeterRegistry registry) {
        this.store = store;
        this.worker = worker;
        this.registry = registry;
        this.thread = new Thread(worker::run, "worker");
    }

    static RunningWorker start(WorkerSettings settings, DatabaseSettings database, Clock clock) {
        LockStore store = PostgresLockStore.open(database);
        MeterRegistry registry = new SimpleMeterRegistry();
        Worker worker = Worker.connect(settings, store, clock, registry);
        worker.checkTopics();
        RunningWorker running = new RunningWorker(store, worker, registry);
        running.thread.start();
        return running;
    }

    /** The worker's metrics. */
    public MeterRegistry registry() {
        return registry;
    }

    /** What the worker's health endpoints would say. */
    public WorkerHealth health() {
        return worker.health();
    }

    /** Stops the worker; a second call does nothing, so a test may stop a worker early. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        worker.stop();
        try {
            if (!worker.awaitStopped(Duration.ofSeconds(30))) {
                throw new IllegalStateException("the worker did not stop within 30 s");
            }
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the worker", e);
        }
        worker.close();
        store.close();
    }
}
