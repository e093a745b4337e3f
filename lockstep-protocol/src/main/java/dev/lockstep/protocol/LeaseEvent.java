package dev.lockstep.protocol;

import dev.lockstep.core.Share;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One change of a lease, as published on the events topic ({@code lock.events}): what an auditor
 * reads to answer "who held this resource, when". Every field is a function of the command log.
 *
 * @param eventId the same for the same change however often it is published: consumers drop
 *     duplicates by it (a worker that crashed before its publications were acknowledged publishes
 *     them again)
 * @param at the log time of the change; for {@link Kind#EXPIRED}, the instant the lease ended
 * @param expiresAt the lease's end as this change set it; empty for release and expiry
 * @param source {@code topic-partition@offset} of the command record that made, or showed, the change
 * @param requestId that record's request ID; empty when it had none (an expiry shown by an invalid record)
 * @param cancels for a release by a cancellation: the request ID of the acquire its caller gave up on,
 *     whose grant this ends; for {@link Kind#CANCELLED}, the request ID of the acquire that left the queue
 * @param fencingToken the lease's; {@code 0} for a waiter's events ({@link Kind#isWait()}), which
 *     concern no lease yet (the field is left out of their JSON)
 * @param waited for a grant to an acquire that waited in the queue: how long, in log time
 * @param permit the lease's permit of its resource; for a waiter's events, 0
 * @param share the lease's share, or the one the waiting acquire asks for
 * @param value the lease's value, on the events that start or extend a lease that has one
 */
public record LeaseEvent(String eventId, Kind kind, String resource, String owner, long fencingToken, Instant at,
        Optional<Instant> expiresAt, String source, Optional<String> requestId, Optional<String> cancels,
        Optional<Duration> waited, int permit, Share share, Optional<String> value) {

    /** An event of a lease without a value, or a waiter's. */
    public LeaseEvent(String eventId, Kind kind, String resource, String owner, long fencingToken, Instant at,
            Optional<Instant> expiresAt, String source, Optional<String> requestId, Optional<String> cancels,
            Optional<Duration> waited, int permit, Share share) {
        this(eventId, kind, resource, owner, fencingToken, at, expiresAt, source, requestId, cancels, waited, permit,
                share, Optional.empty());
    }

    /** A lock's event: permit 0, exclusive. */
    public LeaseEvent(String eventId, Kind kind, String resource, String owner, long fencingToken, Instant at,
            Optional<Instant> expiresAt, String source, Optional<String> requestId, Optional<String> cancels,
            Optional<Duration> waited) {
        this(eventId, kind, resource, owner, fencingToken, at, expiresAt, source, requestId, cancels, waited, 0,
                Share.EXCLUSIVE);
    }

    public LeaseEvent(String eventId, Kind kind, String resource, String owner, long fencingToken, Instant at,
            Optional<Instant> expiresAt, String source, Optional<String> requestId) {
        this(eventId, kind, resource, owner, fencingToken, at, expiresAt, source, requestId, Optional.empty(),
                Optional.empty());
    }

    public LeaseEvent(String eventId, Kind kind, String resource, String owner, long fencingToken, Instant at,
            Optional<Instant> expiresAt, String source, Optional<String> requestId, Optional<String> cancels) {
        this(eventId, kind, resource, owner, fencingToken, at, expiresAt, source, requestId, cancels, Optional.empty());
    }

    /** What happened to the lease. */
    public enum Kind {
        /** A new lease (a new token) for a resource nobody held. */
        GRANTED,
        /** A live lease's expiry moved by its owner: a renew, or the same owner acquiring again. */
        EXTENDED,
        /** Ended by its owner. */
        RELEASED,
        /** Ended by its expiry passing in log time, shown by the first later record of the partition. */
        EXPIRED,
        /** A new lease for another owner after the previous owner's lease expired instead of being released. */
        TAKEN_OVER,
        /** An acquire joined the resource's queue: another owner holds it. */
        QUEUED,
        /** A queued acquire's wait ended, in log time, before the resource came to it. */
        WAIT_EXPIRED,
        /** A queued acquire left the queue: its caller cancelled it. */
        CANCELLED,
        /**
         * An announced lease (one with a value: a leader's) ended and nobody holds its resource
         * after the record that ended it: the group has no leader. Owner and token are the ended lease's.
         */
        VACANT;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Kind> fromWire(String name) {
            for (Kind kind : values()) {
                if (kind.wireName().equals(name)) {
                    return Optional.of(kind);
                }
            }
            return Optional.empty();
        }

        /** Whether the event starts a hold (a new token). */
        public boolean startsHold() {
            return this == GRANTED || this == TAKEN_OVER;
        }

        /** Whether the event ends a hold. */
        public boolean endsHold() {
            return this == RELEASED || this == EXPIRED;
        }

        /** Whether the event is a waiter's, in the resource's queue, not a lease's. */
        public boolean isWait() {
            return this == QUEUED || this == WAIT_EXPIRED || this == CANCELLED;
        }
    }

    public LeaseEvent {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(at, "at");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(cancels, "cancels");
        Objects.requireNonNull(waited, "waited");
        Objects.requireNonNull(share, "share");
        Objects.requireNonNull(value, "value");
    }
}
