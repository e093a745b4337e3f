package dev.lockstep.client;

/**
 * The clock a lease's local validity is measured on: one that never jumps (unlike the wall clock,
 * which NTP and people set) and runs at the rate the lockstep clock assumption bounds
 * (docs/client.md, "The clock assumption"). Injected, so a test can stand in for it.
 */
@FunctionalInterface
public interface MonotonicClock {

    MonotonicInstant now();

    /**
     * {@link System#nanoTime()}. On Linux, HotSpot reads it with {@code clock_gettime(CLOCK_MONOTONIC)}
     * and adds no offset of its own, so every process of the machine reads the same clock: an
     * instant one JVM reads means the same moment to another ({@code lockstep exec}'s guard relies
     * on this, and checks it when it starts).
     */
    static MonotonicClock system() {
        return () -> new MonotonicInstant(System.nanoTime());
    }
}
