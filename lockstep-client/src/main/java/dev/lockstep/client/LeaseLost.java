package dev.lockstep.client;

import java.time.Instant;

/**
 * Why and when a {@link HeldLease} stopped being held.
 *
 * @param at the local instant the client learnt it
 */
public record LeaseLost(String resource, long fencingToken, Reason reason, Instant at) {

    public enum Reason {
        /** A renewal was answered {@code not_found}: the lease had expired, or was released elsewhere. */
        NOT_FOUND,
        /** A renewal was answered {@code forbidden}: another owner holds the resource now. */
        FORBIDDEN,
        /**
         * No renewal succeeded before the lease's expiry by the local clock, minus the safety
         * margin: the worker may already consider it expired.
         */
        EXPIRED,
        /** Its holder gave it up: a {@link LeaderElection} resigned. A closed {@link HeldLease} never reports it. */
        RESIGNED
    }
}
