package dev.lockstep.store;

import java.time.Duration;
import java.util.Objects;

/**
 * When the worker records a partition's checkpoint, and how many it keeps. Checked when built.
 *
 * <p>A checkpoint is taken by a partition's first batch, then by the first batch whose partition
 * clock (log time) is at least {@code interval} past the partition's latest checkpoint, so a quiet
 * partition takes none. Each
 * copies the partition's leases and its remembered request entries (the request retention's
 * worth): the cost grows with the traffic of one request retention, the interval divides it.
 *
 * @param interval log time between two checkpoints of a partition
 * @param keep checkpoints kept per partition (the oldest is removed when a new one is taken); 0 takes none
 */
public record CheckpointPolicy(Duration interval, int keep) {

    public static final CheckpointPolicy OFF = new CheckpointPolicy(Duration.ZERO, 0);
    public static final CheckpointPolicy DEFAULT = new CheckpointPolicy(Duration.ofHours(6), 28);

    public CheckpointPolicy {
        Objects.requireNonNull(interval, "interval");
        if (keep < 0) {
            throw new IllegalArgumentException("--checkpoints-kept must not be negative: " + keep);
        }
        if (keep > 0 && interval.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("--checkpoint-interval must be at least 1 second (got "
                    + interval.toMillis() + " ms): every checkpoint copies the partition's request window");
        }
    }

    public boolean enabled() {
        return keep > 0;
    }
}
