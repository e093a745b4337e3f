package dev.lockstep.worker;

import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import dev.lockstep.store.SweepResult;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes ended leases, old request entries and published events in bounded batches on a thread of its own, off the
 * command path. What it removes is decided in each partition's log time, so when it runs changes
 * no reply. Several workers may sweep at once: each batch skips rows others have locked.
 */
final class Sweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);
    private static final int MAX_BATCHES_PER_RUN = 100;
    private static final Duration STATISTICS_EVERY = Duration.ofSeconds(2);

    private final LockStore store;
    private final Retention retention;
    private ScheduledExecutorService executor;

    Sweeper(LockStore store, Retention retention) {
        this.store = store;
        this.retention = retention;
    }

    void start() {
        executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "lockstep-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        long every = retention.interval().toMillis();
        executor.scheduleWithFixedDelay(this::sweepNow, every, every, TimeUnit.MILLISECONDS);
        executor.scheduleWithFixedDelay(this::refreshTableStatistics, STATISTICS_EVERY.toMillis(),
                STATISTICS_EVERY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** As long as the worker runs: a table that doubled since its statistics gets new ones within seconds. */
    private void refreshTableStatistics() {
        try {
            store.refreshTableStatistics();
        } catch (StoreException e) {
            LOG.debug("analyzing the hot tables failed, will try again: {}", e.getMessage());
        }
    }

    /** One run: batches until one comes back less than full, at most {@value #MAX_BATCHES_PER_RUN}. */
    SweepResult sweepNow() {
        SweepResult total = new SweepResult(0, 0, 0);
        try {
            for (int i = 0; i < MAX_BATCHES_PER_RUN; i++) {
                SweepResult batch = store.sweep(retention.batchSize());
                total = total.plus(batch);
                if (!batch.anyFull(retention.batchSize())) {
                    break;
                }
            }
        } catch (StoreException e) {
            LOG.warn("sweep failed, will try again in {}: {}", retention.interval(), e.getMessage());
        }
        if (total.removedAny()) {
            LOG.info("swept {} ended leases, {} old request entries and {} published events", total.leases(),
                    total.replies(), total.events());
        }
        return total;
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
