package dev.lockstep.worker;

import java.time.Duration;

/**
 * How long ended leases and stored replies are kept before the sweeper removes them.
 *
 * @param leases an ended lease's row is removed this long after it ended (status says
 *     {@code not_found} either way; its token survives in the fencing floor)
 * @param replies a request ID is remembered this long: a retry within it gets the stored reply,
 *     a retry after it is applied as a new command
 * @param interval how often the sweeper runs
 * @param batchSize rows removed per statement; the sweeper repeats while batches come back full
 */
public record Retention(Duration leases, Duration replies, Duration interval, int batchSize) {

    public static final Retention DEFAULT =
            new Retention(Duration.ofHours(1), Duration.ofHours(24), Duration.ofSeconds(30), 1_000);

    public Retention {
        if (leases.isNegative() || replies.isNegative()) {
            throw new IllegalArgumentException("retention must not be negative");
        }
        if (interval.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("sweep interval must be at least 100 ms: " + interval);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("sweep batch size must be at least 1: " + batchSize);
        }
    }
}
