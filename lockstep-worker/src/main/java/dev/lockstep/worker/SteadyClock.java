package dev.lockstep.worker;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/**
 * The worker's clock: the wall clock's reading when the worker started, advanced by the monotonic
 * clock since. Everything the worker times (stall and poll timeouts, retries, caches, how often it
 * ticks) is an interval, and an interval measured on the wall clock jumps when NTP or a person
 * steps it: a step forward would fail {@code /health/live} for records that waited no time at all,
 * a step back would hide a stall. On this clock a step changes nothing until the next start.
 */
public final class SteadyClock extends Clock {

    private final Instant origin;
    private final long originNanos;
    private final LongSupplier nanoTime;

    private SteadyClock(Instant origin, long originNanos, LongSupplier nanoTime) {
        this.origin = origin;
        this.originNanos = originNanos;
        this.nanoTime = nanoTime;
    }

    /** Starts now, from the system's wall clock and {@link System#nanoTime()}. */
    public static SteadyClock startingNow() {
        return startingAt(Clock.systemUTC(), System::nanoTime);
    }

    static SteadyClock startingAt(Clock wall, LongSupplier nanoTime) {
        return new SteadyClock(wall.instant(), nanoTime.getAsLong(), nanoTime);
    }

    @Override
    public Instant instant() {
        return origin.plusNanos(nanoTime.getAsLong() - originNanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
