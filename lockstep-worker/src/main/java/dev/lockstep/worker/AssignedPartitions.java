package dev.lockstep.worker;

import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The command partitions this worker applies, as the poll thread last told them, for the watches
 * that look at them from a thread of their own ({@link Ticker}, {@link StuckTransactions}), and
 * that thread. Thread-safe.
 */
final class AssignedPartitions implements AssignmentWatcher {

    private final Set<Integer> partitions = ConcurrentHashMap.newKeySet();

    @Override
    public void assigned(Collection<Integer> assigned) {
        partitions.addAll(assigned);
    }

    @Override
    public void revoked(Collection<Integer> revoked) {
        partitions.removeAll(revoked);
    }

    /** The partitions assigned now. */
    Set<Integer> now() {
        return Set.copyOf(partitions);
    }

    boolean contains(int partition) {
        return partitions.contains(partition);
    }

    /** Runs {@code task} every {@code every} (after the last run ends) on a daemon thread named {@code name}. */
    static ScheduledExecutorService every(Duration every, String name, Runnable task) {
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, name);
            thread.setDaemon(true);
            return thread;
        });
        executor.scheduleWithFixedDelay(task, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return executor;
    }
}
