package dev.lockstep.replay;

import java.util.Objects;
import java.util.Optional;

/**
 * One place where what was published or stored is not what the log decides.
 *
 * @param source {@code topic-partition@offset} of the command record it concerns, or the partition
 * @param requestId the command's request ID, where there is one
 */
public record Divergence(Kind kind, String source, Optional<String> requestId, String expected, String found) {

    /** What diverged. */
    public enum Kind {
        /** A reply differs from every reply the log gives that request. */
        REPLY_DIFFERS,
        /** A command record was applied, but its reply was never published. */
        REPLY_MISSING,
        /** A reply for a request ID no record of the log carries. */
        REPLY_FORGED,
        /** An event differs from the one the log makes under its ID. */
        EVENT_DIFFERS,
        /** The log makes an event that was never published. */
        EVENT_MISSING,
        /** An event the log does not make. */
        EVENT_FORGED,
        /** An event on another partition or key than its command's. */
        EVENT_MISPLACED,
        /** A lease row differs from the lease the log leaves. */
        LEASE_DIFFERS,
        /** The log leaves a lease the database does not have. */
        LEASE_MISSING,
        /** The database has a lease the log does not leave. */
        LEASE_UNEXPECTED,
        /**
         * The partition's recorded position (next offset, clock, token base, last tick, live until) is
         * not where the log leaves it.
         */
        POSITION_DIFFERS,
        /** A recorded checkpoint is not the state the records before it leave. */
        CHECKPOINT_DIFFERS
    }

    public Divergence {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(expected, "expected");
        Objects.requireNonNull(found, "found");
    }
}
