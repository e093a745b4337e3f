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
 * a step back would hide a stall. On this clock a step changes nothing. What the worker compares
 * with log-append times (metrics, {@link LogTimes}'s clock warnings) reads the wall clock itself.
 */
final class SteadyClock extends Clock {

    private final Instant origin;
    private final long originNanos;
    private final LongSupplier nanoTime;

    private SteadyClock(Instant origin, long originNanos, LongSupplier nanoTime) {
        this.origin = origin;
        this.originNanos = originNanos;
        this.nanoTime = nanoTime;
    }

    /** Starts now, from {@code wall}'s reading and {@code nanoTime}'s. */
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

    /** Always UTC: the worker reads instants, never local dates. */
    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
