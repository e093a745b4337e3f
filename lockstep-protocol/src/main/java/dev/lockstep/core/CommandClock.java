package dev.lockstep.core;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Chooses the arbiter's {@code now} for each command of one partition: the broker's log-append
 * time, never earlier than the last {@code now} used on the partition.
 *
 * <p>A producer-chosen timestamp is never passed in here, so a forged future timestamp cannot
 * expire somebody's lease; the worker's own clock is never used either, so applying the log again
 * yields the same instants. Time never runs backwards on a partition: a record stamped earlier
 * than the one before it (a new partition leader with a lagging clock) keeps the last instant.
 * Instants are truncated to milliseconds, the precision of the wire format.
 */
public final class CommandClock {

    private Instant last;

    /** @param last the last instant used on this partition (persisted with its position) */
    public CommandClock(Instant last) {
        this.last = last.truncatedTo(ChronoUnit.MILLIS);
    }

    /** @param logAppendTime the record's timestamp as the broker stamped it (LogAppendTime) */
    public Instant next(Instant logAppendTime) {
        Instant candidate = logAppendTime.truncatedTo(ChronoUnit.MILLIS);
        if (candidate.isAfter(last)) {
            last = candidate;
        }
        return last;
    }

    public Instant last() {
        return last;
    }
}
