package dev.lockstep.client;

import java.time.Duration;

/**
 * A point on a {@link MonotonicClock}: nanoseconds from the clock's own origin, comparable only
 * with another instant of the same clock (compared as {@link System#nanoTime()} values are, by
 * their difference). {@link MonotonicClock#system()}'s instants are the machine's, not the
 * process's, on Linux: another process can be given one (docs/client.md, "lockstep exec").
 */
public record MonotonicInstant(long nanos) implements Comparable<MonotonicInstant> {

    public MonotonicInstant plus(Duration duration) {
        return new MonotonicInstant(nanos + duration.toNanos());
    }

    /** From this instant to {@code other}: negative when {@code other} is earlier. */
    public Duration until(MonotonicInstant other) {
        return Duration.ofNanos(other.nanos - nanos);
    }

    public boolean isBefore(MonotonicInstant other) {
        return nanos - other.nanos < 0;
    }

    @Override
    public int compareTo(MonotonicInstant other) {
        return Long.signum(nanos - other.nanos);
    }
}
