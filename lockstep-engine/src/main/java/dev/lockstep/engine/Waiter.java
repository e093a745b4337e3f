package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.protocol.Fingerprint;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * An acquire waiting in its resource's queue: everything its grant, or the end of its wait, is
 * decided and answered by, since the record that queued it is not read again.
 *
 * @param offset the acquire's offset: the queue's order
 * @param queuedAt the log time it joined the queue
 * @param deadline the log time its wait ends: {@code queuedAt + wait}
 * @param route where its one reply goes
 * @param correlationId its {@code kafka_correlationId}, copied onto that reply
 * @param share the share of the resource it waits for
 * @param value the value its lease is to publish
 */
public record Waiter(String resource, String requestId, String owner, Duration ttl, long offset, Instant queuedAt,
        Instant deadline, ReplyRoute route, Optional<byte[]> correlationId, Fingerprint fingerprint, Share share,
        Optional<String> value) {

    /** By deadline, then by place in the log: the order waits end in. */
    static final Comparator<Waiter> BY_DEADLINE = Comparator.comparing(Waiter::deadline)
            .thenComparingLong(Waiter::offset);

    public Waiter {
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(ttl, "ttl");
        Objects.requireNonNull(queuedAt, "queuedAt");
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(correlationId, "correlationId");
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(share, "share");
        Objects.requireNonNull(value, "value");
    }

    /** A waiter whose lease publishes no value. */
    public Waiter(String resource, String requestId, String owner, Duration ttl, long offset, Instant queuedAt,
            Instant deadline, ReplyRoute route, Optional<byte[]> correlationId, Fingerprint fingerprint, Share share) {
        this(resource, requestId, owner, ttl, offset, queuedAt, deadline, route, correlationId, fingerprint, share,
                Optional.empty());
    }

    /** An exclusive waiter: a lock's. */
    public Waiter(String resource, String requestId, String owner, Duration ttl, long offset, Instant queuedAt,
            Instant deadline, ReplyRoute route, Optional<byte[]> correlationId, Fingerprint fingerprint) {
        this(resource, requestId, owner, ttl, offset, queuedAt, deadline, route, correlationId, fingerprint,
                Share.EXCLUSIVE);
    }

    static Waiter of(Command.Acquire acquire, Triaged.Apply apply, long offset, Instant now) {
        return new Waiter(acquire.resource(), acquire.requestId(), acquire.owner(), acquire.ttl(), offset, now,
                now.plus(acquire.maxWait()), apply.route(), apply.correlationId(), Fingerprint.of(acquire),
                acquire.share(), acquire.value());
    }

    /** Equal by content, the correlation ID's bytes included: a checkpoint's waiter is compared with a replay's. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Waiter that && offset == that.offset && resource.equals(that.resource)
                && requestId.equals(that.requestId) && owner.equals(that.owner) && ttl.equals(that.ttl)
                && queuedAt.equals(that.queuedAt) && deadline.equals(that.deadline) && route.equals(that.route)
                && fingerprint.equals(that.fingerprint) && correlationHex().equals(that.correlationHex())
                && share.equals(that.share) && value.equals(that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(resource, requestId, offset);
    }

    @Override
    public String toString() {
        return "Waiter[" + requestId + " of " + owner + " for " + resource + " at offset " + offset + ", ttl " + ttl
                + ", queued " + queuedAt + " until " + deadline + ", reply to " + route + correlationHex()
                        .map(id -> ", correlation " + id).orElse("") + (share.exclusive() ? "" : ", " + share) + "]";
    }

    private Optional<String> correlationHex() {
        return correlationId.map(HexFormat.of()::formatHex);
    }

    /** The acquire as the lock rules take it when its turn comes: it waits no more. */
    Command.Acquire acquire() {
        return new Command.Acquire(requestId, resource, owner, ttl, Duration.ZERO, share, value);
    }
}
