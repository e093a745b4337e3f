package dev.lockstep.core;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A validated lock command. Everything here has passed the protocol's checks: lengths are in
 * bounds, owners are trimmed and non-empty, TTLs are positive and below the configured maximum.
 */
public sealed interface Command {

    String requestId();

    String resource();

    CommandType type();

    /**
     * @param maxWait how long the caller waits in the resource's queue when another owner holds it;
     *     zero answers at once
     * @param share the whole resource, or one of its shared permits
     * @param value what the lease publishes (a leader's address): it replaces the one the owner's
     *     lease had
     */
    record Acquire(String requestId, String resource, String owner, Duration ttl, Duration maxWait, Share share,
            Optional<String> value) implements Command {

        public Acquire {
            Objects.requireNonNull(share, "share");
            Objects.requireNonNull(value, "value");
            if (maxWait.isNegative()) {
                throw new IllegalArgumentException("a wait is not negative: " + maxWait);
            }
        }

        public Acquire(String requestId, String resource, String owner, Duration ttl, Duration maxWait, Share share) {
            this(requestId, resource, owner, ttl, maxWait, share, Optional.empty());
        }

        public Acquire(String requestId, String resource, String owner, Duration ttl, Duration maxWait) {
            this(requestId, resource, owner, ttl, maxWait, Share.EXCLUSIVE);
        }

        public Acquire(String requestId, String resource, String owner, Duration ttl) {
            this(requestId, resource, owner, ttl, Duration.ZERO);
        }

        /** Whether the caller waits in the queue rather than be answered {@code not_acquired} at once. */
        public boolean waits() {
            return !maxWait.isZero();
        }

        @Override
        public CommandType type() {
            return CommandType.ACQUIRE;
        }
    }

    /** @param fencingToken when present, must equal the live lease's token */
    record Renew(String requestId, String resource, String owner, Duration ttl, OptionalLong fencingToken)
            implements Command {
        @Override
        public CommandType type() {
            return CommandType.RENEW;
        }
    }

    /**
     * @param fencingToken when present, must equal the live lease's token
     * @param cancels the request ID of an acquire its caller gave up on: only the lease that very
     *     acquire granted is released, if it still holds (a cancellation, sent right after it)
     */
    record Release(String requestId, String resource, String owner, OptionalLong fencingToken,
            Optional<String> cancels) implements Command {

        public Release(String requestId, String resource, String owner, OptionalLong fencingToken) {
            this(requestId, resource, owner, fencingToken, Optional.empty());
        }

        /** The cancellation of {@code acquire}: releases what it granted, nothing else. */
        public static Release cancelling(String requestId, Acquire acquire) {
            return new Release(requestId, acquire.resource(), acquire.owner(), OptionalLong.empty(),
                    Optional.of(acquire.requestId()));
        }

        @Override
        public CommandType type() {
            return CommandType.RELEASE;
        }
    }

    /**
     * @param owner when given, and that owner waits in the resource's queue, the reply says where
     *     in line (only the waiter's own owner learns it)
     */
    record Status(String requestId, String resource, Optional<String> owner) implements Command {

        public Status(String requestId, String resource) {
            this(requestId, resource, Optional.empty());
        }

        @Override
        public CommandType type() {
            return CommandType.STATUS;
        }
    }
}
