package dev.lockstep.worker;

import dev.lockstep.engine.EngineSettings;
import java.time.Duration;

/**
 * How long request IDs are remembered, and how the sweeper removes what no record can observe
 * any more. Ended leases need no retention: a lease that ended in its partition's log time is
 * nobody's, and new tokens come from positions, not from old rows.
 *
 * @param requests a request ID is remembered this long in log time: a retry within it gets the
 *     stored reply, a retry after it is applied as a new command
 * @param interval how often the sweeper runs (its timing changes no reply)
 * @param batchSize rows removed per statement; the sweeper repeats while batches come back full
 */
public record Retention(Duration requests, Duration interval, int batchSize) {

    public static final Retention DEFAULT =
            new Retention(EngineSettings.DEFAULT_REQUEST_RETENTION, Duration.ofSeconds(30), 1_000);

    public Retention {
        if (requests.compareTo(EngineSettings.MIN_REQUEST_RETENTION) < 0) {
            throw new IllegalArgumentException("--request-retention must be at least "
                    + EngineSettings.MIN_REQUEST_RETENTION.toSeconds() + " seconds (got " + requests.toSeconds()
                    + "): a retry within it must get its first reply, not be applied again");
        }
        if (interval.compareTo(Duration.ofMillis(100)) < 0) {
            throw new IllegalArgumentException("sweep interval must be at least 100 ms: " + interval);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("sweep batch size must be at least 1: " + batchSize);
        }
    }
}
