package dev.lockstep.core;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * Chooses the arbiter's {@code now} for each command of one partition.
 *
 * <p>The broker's log-append time is used when the topic stamps it; otherwise the worker's clock.
 * A producer-chosen timestamp is never passed in here, so a forged future timestamp cannot
 * expire somebody's lease. Time never runs backwards on a partition: a worker whose clock lags
 * the previous one (or the broker) keeps using the last instant until its clock catches up.
 * Instants are truncated to milliseconds, the precision of the wire format.
 */
public final class CommandClock {

    private Instant last;

    /** @param last the last instant used on this partition (persisted with its progress) */
    public CommandClock(Instant last) {
        this.last = last.truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * @param logAppendTime the record's timestamp, only when the broker set it (LogAppendTime)
     * @param workerClock the worker's clock, read once per record or batch
     */
    public Instant next(Optional<Instant> logAppendTime, Instant workerClock) {
        Instant candidate = logAppendTime.orElse(workerClock).truncatedTo(ChronoUnit.MILLIS);
        if (candidate.isAfter(last)) {
            last = candidate;
        }
        return last;
    }

    public Instant last() {
        return last;
    }
}
