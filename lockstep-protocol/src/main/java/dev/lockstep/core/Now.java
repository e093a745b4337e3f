package dev.lockstep.core;

import java.time.Instant;
import java.util.Objects;

/**
 * Where a record stands in its partition's time, as two instants: the time known to have passed
 * by it, and the latest it may be. An end is over once {@code passed} reaches it; what starts at
 * the record (a lease, a wait) is dated from {@code from}. Dated late and ended late, a lease
 * lasts at least its TTL of real time, whatever the broker's clock did (docs/protocol.md, "Time").
 *
 * @param passed the log time known to have passed: leases and waits ending up to it are over
 * @param from what starts at this record is dated from here: never before the record
 */
public record Now(Instant passed, Instant from) {

    public Now {
        Objects.requireNonNull(passed, "passed");
        Objects.requireNonNull(from, "from");
        if (from.isBefore(passed)) {
            throw new IllegalArgumentException("a record's latest instant " + from + " is before its earliest "
                    + passed);
        }
    }

    /** A record whose time is one instant: its log-append time, as a partition keeping log time has it. */
    public static Now at(Instant instant) {
        return new Now(instant, instant);
    }
}
