package dev.lockstep.protocol;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Outcome;
import java.time.Duration;

/** A reply as a client sees it: one type per outcome, with exactly the data that outcome carries. */
public sealed interface LockReply {

    Outcome outcome();

    record Acquired(Lease lease) implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.ACQUIRED;
        }
    }

    /** Held by someone else; try again after {@code retryAfter}. */
    record NotAcquired(Duration retryAfter) implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.NOT_ACQUIRED;
        }
    }

    record Renewed(Lease lease) implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.RENEWED;
        }
    }

    record Released() implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.RELEASED;
        }
    }

    record Locked(Lease lease) implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.LOCKED;
        }
    }

    record NotFound() implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.NOT_FOUND;
        }
    }

    record Forbidden() implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.FORBIDDEN;
        }
    }

    record Invalid(Problem problem) implements LockReply {
        @Override
        public Outcome outcome() {
            return Outcome.INVALID;
        }
    }
}
