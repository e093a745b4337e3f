package dev.lockstep.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The most recent lease on one of a resource's permits (a lock has one), live or ended.
 *
 * <p>A lease that has ended (expired, or released, which sets its expiry to the release time) is
 * kept rather than forgotten: its fencing token is the resource's high-water mark, and the next
 * grant must issue a larger one.
 *
 * @param resource the locked resource
 * @param owner who the lease was granted to; a claim made by the caller, not an identity
 * @param fencingToken strictly increasing per resource across grants
 * @param acquiredAt when this lease (this token) was granted
 * @param expiresAt the instant from which the lease is no longer held
 * @param permit which of the resource's permits it holds: 0 to {@code share.limit() - 1}
 * @param share the whole resource, or one of its shared permits
 * @param value what the holder publishes with its lease (a leader's address), set by its latest
 *     acquire; a lease with one is announced: when it ends and nobody holds the resource, the
 *     worker says the resource is vacant
 */
public record Lease(String resource, String owner, long fencingToken, Instant acquiredAt, Instant expiresAt,
        int permit, Share share, Optional<String> value) {

    public Lease {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(acquiredAt, "acquiredAt");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(share, "share");
        Objects.requireNonNull(value, "value");
        if (fencingToken < 1) {
            throw new IllegalArgumentException("fencing token must be positive: " + fencingToken);
        }
        if (permit < 0 || permit >= share.limit()) {
            throw new IllegalArgumentException("permit " + permit + " is not one of the " + share.limit()
                    + " of " + resource);
        }
    }

    /** A lease without a value. */
    public Lease(String resource, String owner, long fencingToken, Instant acquiredAt, Instant expiresAt, int permit,
            Share share) {
        this(resource, owner, fencingToken, acquiredAt, expiresAt, permit, share, Optional.empty());
    }

    /** An exclusive lease: the whole resource, as a lock's lease is. */
    public Lease(String resource, String owner, long fencingToken, Instant acquiredAt, Instant expiresAt) {
        this(resource, owner, fencingToken, acquiredAt, expiresAt, 0, Share.EXCLUSIVE);
    }

    /** A lease is held strictly before its expiry instant. */
    public boolean isLiveAt(Instant now) {
        return now.isBefore(expiresAt);
    }

    public boolean isOwnedBy(String candidate) {
        return owner.equals(candidate);
    }

    /** The time left until {@code now} no longer falls inside the lease; zero once it has ended. */
    public Duration remainingAt(Instant now) {
        return isLiveAt(now) ? Duration.between(now, expiresAt) : Duration.ZERO;
    }

    Lease withExpiry(Instant newExpiry) {
        return new Lease(resource, owner, fencingToken, acquiredAt, newExpiry, permit, share, value);
    }

    Lease withValue(Optional<String> newValue) {
        return new Lease(resource, owner, fencingToken, acquiredAt, expiresAt, permit, share, newValue);
    }
}
