package dev.lockstep.replay;

import java.time.Instant;
import java.util.Optional;

/**
 * The log-time window a replay compares: records outside it are replayed (they make the state)
 * but not compared.
 *
 * @param from inclusive
 * @param to exclusive
 */
public record TimeWindow(Optional<Instant> from, Optional<Instant> to) {

    public static final TimeWindow ALL = new TimeWindow(Optional.empty(), Optional.empty());

    public TimeWindow {
        if (from.isPresent() && to.isPresent() && !from.get().isBefore(to.get())) {
            throw new IllegalArgumentException("the window's start " + from.get() + " is not before its end " + to.get());
        }
    }

    public boolean contains(Instant at) {
        return (from.isEmpty() || !at.isBefore(from.get())) && (to.isEmpty() || at.isBefore(to.get()));
    }

    public boolean isAll() {
        return from.isEmpty() && to.isEmpty();
    }
}
