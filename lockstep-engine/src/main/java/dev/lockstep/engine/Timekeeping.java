package dev.lockstep.engine;

import java.time.Duration;
import java.util.Objects;

/**
 * How a partition's time passes: a recorded setting, so that a replay keeps time as the worker did.
 *
 * <p>{@link LogAppend}: time is the largest log-append time seen, as the partition leader's clock
 * stamped it; a leader whose clock runs ahead ends leases early. {@link Anchored} (what a worker
 * records now): time passes only at the worker's ticks, by what the worker measured on its
 * monotonic clock between its own ticks and never more than the broker's clock moved; a record
 * between ticks is dated {@code slack} later than the last tick. So no lease ends before its TTL
 * of real time has passed, whatever the leader's clock does (docs/protocol.md, "Time").
 */
public sealed interface Timekeeping {

    /** The slack a worker records: ticks come every 250 ms, so a record is at most this after the last. */
    Duration DEFAULT_SLACK = Duration.ofMillis(500);

    /** The recorded name of this way of keeping time. */
    String name();

    /** Time is the log-append time (the setting before time was anchored; old logs replay under it). */
    record LogAppend() implements Timekeeping {

        @Override
        public String name() {
            return "log";
        }
    }

    /**
     * Time passes at the worker's measured ticks.
     *
     * @param slack how much later than the last tick's time a record between ticks is dated, and
     *     the most a tick after such a record moves time on
     */
    record Anchored(Duration slack) implements Timekeeping {

        public Anchored {
            Objects.requireNonNull(slack, "slack");
            if (slack.isNegative() || slack.isZero() || slack.toMillis() * 1_000_000 != slack.toNanos()) {
                throw new IllegalArgumentException("the time slack is a positive number of milliseconds: " + slack);
            }
        }

        @Override
        public String name() {
            return "anchored";
        }
    }
}
