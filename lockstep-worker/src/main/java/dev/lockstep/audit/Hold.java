package dev.lockstep.audit;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * One hold of a resource: one fencing token, from its grant to its end.
 *
 * @param expiresAt the end its latest grant or extension set; a hold still {@link End#HELD} is not
 *     held at or after it, even before a record shows the expiry
 * @param endedAt when it was released or expired; empty while held
 * @param takenOver whether it began as a takeover: the previous holder's lease had expired, not been
 *     released (the sign of a holder that stalled past its TTL while someone else started)
 * @param waited how long its holder waited in the resource's queue before it was granted, in log time
 * @param permit which of the resource's permits it held: 0 for a lock
 * @param exclusive whether it held the whole resource (a lock's, a writer's), not a shared permit
 * @param value what the holder published with it (a leader's address), as its latest grant or extension set it
 */
public record Hold(String owner, long fencingToken, Instant acquiredAt, Instant expiresAt, Optional<Instant> endedAt,
        End end, boolean takenOver, Optional<Duration> waited, int permit, boolean exclusive, Optional<String> value) {

    public Hold(String owner, long fencingToken, Instant acquiredAt, Instant expiresAt, Optional<Instant> endedAt,
            End end, boolean takenOver, Optional<Duration> waited, int permit, boolean exclusive) {
        this(owner, fencingToken, acquiredAt, expiresAt, endedAt, end, takenOver, waited, permit, exclusive,
                Optional.empty());
    }

    public Hold(String owner, long fencingToken, Instant acquiredAt, Instant expiresAt, Optional<Instant> endedAt,
            End end, boolean takenOver, Optional<Duration> waited) {
        this(owner, fencingToken, acquiredAt, expiresAt, endedAt, end, takenOver, waited, 0, true);
    }

    public Hold(String owner, long fencingToken, Instant acquiredAt, Instant expiresAt, Optional<Instant> endedAt,
            End end, boolean takenOver) {
        this(owner, fencingToken, acquiredAt, expiresAt, endedAt, end, takenOver, Optional.empty());
    }

    /**
     * How a hold ended, as far as the log has shown. {@code CANCELLED}: released by the
     * cancellation of the acquire that granted it (its caller had given up waiting for the reply).
     */
    public enum End {
        RELEASED, CANCELLED, EXPIRED, HELD;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public Hold {
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(endedAt, "endedAt");
        Objects.requireNonNull(end, "end");
        Objects.requireNonNull(waited, "waited");
        Objects.requireNonNull(value, "value");
    }

    /** The instant from which it is no longer held: its end, or while held its expiry. */
    public Instant until() {
        return endedAt.orElse(expiresAt);
    }

    /** Whether the resource was held by this hold at {@code t}: from the grant, before the end. */
    public boolean covers(Instant t) {
        return !t.isBefore(acquiredAt) && t.isBefore(until());
    }

    /** Whether it overlaps {@code [from, to)}. */
    public boolean overlaps(Instant from, Instant to) {
        return acquiredAt.isBefore(to) && until().isAfter(from);
    }
}
