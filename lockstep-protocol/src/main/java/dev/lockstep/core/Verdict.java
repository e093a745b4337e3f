package dev.lockstep.core;

import java.time.Duration;

/**
 * Every answer a command can get, with exactly the data each carries: what the arbiter decides
 * for a valid command, and {@link Invalid} for one that never reached it. Clients receive the
 * same type, decoded from the reply.
 */
public sealed interface Verdict {

    Outcome outcome();

    /** A new lease, or the same owner's live lease extended (same token). */
    record Acquired(Lease lease) implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.ACQUIRED;
        }
    }

    /** Someone else holds a live lease; says only when it ends, never who holds it. */
    record NotAcquired(Duration retryAfter) implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.NOT_ACQUIRED;
        }
    }

    record Renewed(Lease lease) implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.RENEWED;
        }
    }

    record Released() implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.RELEASED;
        }
    }

    /** Status of a live lease. */
    record Locked(Lease lease) implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.LOCKED;
        }
    }

    /** No live lease: never granted, expired, or released. */
    record NotFound() implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.NOT_FOUND;
        }
    }

    /** A live lease exists, but the caller's owner or fencing token does not match it. */
    record Forbidden() implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.FORBIDDEN;
        }
    }

    /** The command was rejected before arbitration; the problem names every bad field. */
    record Invalid(Problem problem) implements Verdict {
        @Override
        public Outcome outcome() {
            return Outcome.INVALID;
        }
    }
}
