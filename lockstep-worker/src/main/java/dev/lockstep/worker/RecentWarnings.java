package dev.lockstep.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/**
 * What a watch told an operator lately, for {@code /health/ready}: the last few warnings of the
 * last ten minutes, each with its time. Thread-safe.
 */
final class RecentWarnings {

    private static final Duration REMEMBERED = Duration.ofMinutes(10);
    private static final int KEPT = 20;

    private record Warning(Instant at, String text) {
    }

    private final Clock clock;
    private final Deque<Warning> warnings = new ArrayDeque<>();

    RecentWarnings(Clock clock) {
        this.clock = clock;
    }

    synchronized void add(String text) {
        warnings.addLast(new Warning(clock.instant(), text));
        while (warnings.size() > KEPT) {
            warnings.removeFirst();
        }
    }

    synchronized List<String> texts() {
        Instant since = clock.instant().minus(REMEMBERED);
        return warnings.stream().filter(w -> w.at().isAfter(since)).map(w -> w.at() + ": " + w.text()).toList();
    }
}
