package dev.lockstep.worker;

import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import java.time.Duration;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The wait queues' lengths per partition for the gauges: asked of the database in one statement at
 * most once per {@code maxAge}, however many partition gauges one scrape reads.
 */
final class QueueLengths {

    private final LockStore store;
    private final String topic;
    private final long maxAgeNanos;
    private final LongSupplier nanoTime;
    private Map<Integer, Long> latest = Map.of();
    private boolean failed;
    private long askedAt;
    private boolean asked;

    QueueLengths(LockStore store, String topic, Duration maxAge, LongSupplier nanoTime) {
        this.store = store;
        this.topic = topic;
        this.maxAgeNanos = maxAge.toNanos();
        this.nanoTime = nanoTime;
    }

    /** How many acquires wait on {@code partition}; NaN while the database does not answer. */
    synchronized double of(int partition) {
        long now = nanoTime.getAsLong();
        if (!asked || now - askedAt >= maxAgeNanos) {
            asked = true;
            askedAt = now;
            try {
                latest = store.waiters(topic);
                failed = false;
            } catch (StoreException e) {
                failed = true;
            }
        }
        return failed ? Double.NaN : latest.getOrDefault(partition, 0L);
    }
}
