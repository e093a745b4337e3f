package dev.lockstep.core;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Every answer a command can get, with exactly the data each carries: what the arbiter decides
 * for a valid command, and {@link Invalid} for one that never reached it. Clients receive the
 * same type, decoded from the reply.
 */
public sealed interface Verdict {

    Outcome outcome();

    /**
     * A new lease, or the same owner's live lease extended (same token).
     *
     * @param waited for an acquire granted after it waited in the resource's queue: how long, in log
     *     time, from its own record to the grant. A client dates the grant by it: the lease began no
     *     earlier than its first send plus this, on any clock that runs at the log's rate (absent for
     *     an acquire answered at once, so its reply's bytes stay the same)
     */
    record Acquired(Lease lease, Optional<Duration> waited) implements Verdict {

        public Acquired {
            Objects.requireNonNull(waited, "waited");
        }

        public Acquired(Lease lease) {
            this(lease, Optional.empty());
        }

        @Override
        public Outcome outcome() {
            return Outcome.ACQUIRED;
        }
    }

    /**
     * Someone else holds a live lease; says only when it ends, never who holds it.
     *
     * @param reason for an acquire that asked to wait: why it is not waiting any more (absent for
     *     one answered at once, as before waiting existed, so its reply's bytes stay the same)
     */
    record NotAcquired(Duration retryAfter, Optional<WaitEnd> reason) implements Verdict {

        public NotAcquired(Duration retryAfter) {
            this(retryAfter, Optional.empty());
        }

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

    /**
     * Status of a resource with live holders: a lock's one lease, or a shared resource's leases.
     *
     * @param holders the live leases, by permit; never empty
     * @param waiters how many acquires wait in the resource's queue behind them
     * @param position where the status's owner waits in that queue, 1 = next in line; empty when
     *     the status named no owner or its owner does not wait
     */
    record Locked(List<Lease> holders, int waiters, OptionalInt position) implements Verdict {

        public Locked {
            holders = List.copyOf(holders);
            if (holders.isEmpty()) {
                throw new IllegalArgumentException("a locked resource has a holder");
            }
        }

        public Locked(Lease lease) {
            this(List.of(lease), 0, OptionalInt.empty());
        }

        public Locked(Lease lease, int waiters) {
            this(List.of(lease), waiters, OptionalInt.empty());
        }

        /** The first holder, by permit: a lock's one lease. */
        public Lease lease() {
            return holders.get(0);
        }

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

    /**
     * The command was not decided: its resource is not decided on the partition it was sent to.
     * The command topic grew (or the record was misrouted): send the same command, with the same
     * request ID, to {@code partition}, which decides it or names the next partition to try.
     *
     * @param partition where to send it
     * @param partitions the command topic's partition count as that partition routes
     */
    record Moved(int partition, int partitions) implements Verdict {
        public Moved {
            if (partition < 0 || partition >= partitions) {
                throw new IllegalArgumentException("partition " + partition + " is not one of " + partitions);
            }
        }

        @Override
        public Outcome outcome() {
            return Outcome.MOVED;
        }
    }
}
