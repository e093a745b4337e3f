package dev.lockstep.worker;

import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import dev.lockstep.store.SweepResult;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes ended leases and old request entries in bounded batches on a thread of its own, off the
 * command path. What it removes is decided in each partition's log time, so when it runs changes
 * no reply. Several workers may sweep at once: each batch skips rows others have locked.
 */
final class Sweeper implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Sweeper.class);
    private static final int MAX_BATCHES_PER_RUN = 100;

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
    }

    /** One run: batches until one comes back less than full, at most {@value #MAX_BATCHES_PER_RUN}. */
    SweepResult sweepNow() {
        int leases = 0;
        int replies = 0;
        try {
            for (int i = 0; i < MAX_BATCHES_PER_RUN; i++) {
                SweepResult batch = store.sweep(retention.batchSize());
                leases += batch.leases();
                replies += batch.replies();
                if (batch.leases() < retention.batchSize() && batch.replies() < retention.batchSize()) {
                    break;
                }
            }
        } catch (StoreException e) {
            LOG.warn("sweep failed, will try again in {}: {}", retention.interval(), e.getMessage());
        }
        SweepResult total = new SweepResult(leases, replies);
        if (total.removedAny()) {
            LOG.info("swept {} ended leases and {} old request entries", leases, replies);
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
