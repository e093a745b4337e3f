package dev.lockstep.worker;

import java.time.Duration;

/** Exponential backoff between retries of a failed batch: 100 ms doubling to at most 5 s. */
final class Backoff {

    private static final Duration FIRST = Duration.ofMillis(100);
    private static final Duration MAX = Duration.ofSeconds(5);

    private Duration next = FIRST;

    Duration next() {
        Duration current = next;
        next = next.multipliedBy(2).compareTo(MAX) > 0 ? MAX : next.multipliedBy(2);
        return current;
    }

    void reset() {
        next = FIRST;
    }
}
