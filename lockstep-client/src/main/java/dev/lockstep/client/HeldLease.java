package dev.lockstep.client;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lease this process holds, renewed automatically until it is closed; closing releases it.
 *
 * <p><b>Fencing.</b> A lease can end without its holder noticing in time: a long GC pause, a
 * stalled network, a suspended VM. The holder then still believes it owns the resource while a
 * new holder has it. {@link #lost()} completes as soon as this client knows or must assume the
 * lease is gone, but no client-side signal can close that window entirely. The only safe
 * guard is at the protected resource: pass {@link #fencingToken()} with every write and have the
 * resource refuse any token smaller than the largest it has already seen. Tokens grow with every
 * new grant on a resource, so a write from a stale holder is always rejected there.
 *
 * <p><b>Loss.</b> The lease counts as lost when a renewal is answered {@code not_found} or
 * {@code forbidden}, or when no renewal succeeded within {@code ttl * (1 - safety margin)} after
 * the last successful one was <em>sent</em> (measured on the local clock, which never runs ahead
 * of the worker's view of that lease).
 */
public final class HeldLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeldLease.class);

    private final LockClient client;
    private final Duration ttl;
    private final CompletableFuture<LeaseLost> lost = new CompletableFuture<>();
    private volatile Lease lease;
    private volatile Instant validUntil;
    private volatile boolean closed;
    private ScheduledFuture<?> renewal;
    private ScheduledFuture<?> expiry;

    private HeldLease(LockClient client, Lease lease, Duration ttl) {
        this.client = client;
        this.lease = lease;
        this.ttl = ttl;
    }

    /** Takes over a granted lease: schedules its renewals and its local expiry check. */
    static HeldLease start(LockClient client, Lease granted, Duration ttl, Instant sentAt) {
        HeldLease held = new HeldLease(client, granted, ttl);
        held.renewed(granted, sentAt);
        long every = Math.max(1, (long) (ttl.toMillis() * client.settings().renewFraction()));
        // The first renewal is due counted from the grant's first send, like the local validity: a
        // reply that came slowly leaves less of the lease, not a later renewal.
        long sinceSent = Math.max(0, Duration.between(sentAt, client.clock().instant()).toMillis());
        held.renewal = client.scheduler().scheduleAtFixedRate(held::renewNow, Math.max(0, every - sinceSent), every,
                TimeUnit.MILLISECONDS);
        return held;
    }

    public String resource() {
        return lease.resource();
    }

    public String owner() {
        return lease.owner();
    }

    /** Pass this to the protected resource with every write; see the class comment. */
    public long fencingToken() {
        return lease.fencingToken();
    }

    /** The lease as the worker last reported it: its permit and share among them. */
    public Lease lease() {
        return lease;
    }

    /** The expiry the worker last reported, in the worker's time. */
    public Instant expiresAt() {
        return lease.expiresAt();
    }

    /** Completes the moment the lease is known, or must be assumed, lost. Never completes for a lease closed in time. */
    public CompletableFuture<LeaseLost> lost() {
        return lost.copy();
    }

    public boolean isLost() {
        return lost.isDone();
    }

    private synchronized void renewed(Lease current, Instant sentAt) {
        lease = current;
        validUntil = sentAt.plusMillis((long) (ttl.toMillis() * (1 - client.settings().safetyMarginFraction())));
        if (expiry != null) {
            expiry.cancel(false);
        }
        long delay = Math.max(0, Duration.between(client.clock().instant(), validUntil).toMillis());
        expiry = client.scheduler().schedule(this::checkExpiry, delay, TimeUnit.MILLISECONDS);
    }

    private void renewNow() {
        if (closed || isLost()) {
            return;
        }
        Instant sentAt = client.clock().instant();
        client.renew(lease.resource(), lease.owner(), ttl, OptionalLong.of(lease.fencingToken()))
                .whenComplete((reply, error) -> {
                    if (error != null) {
                        LOG.warn("renewing {} failed (will retry until {}): {}", lease.resource(), validUntil,
                                error.getMessage());
                    } else if (reply instanceof Verdict.Renewed renewed) {
                        renewed(renewed.lease(), sentAt);
                    } else if (reply instanceof Verdict.NotFound) {
                        lose(LeaseLost.Reason.NOT_FOUND);
                    } else if (reply instanceof Verdict.Forbidden) {
                        lose(LeaseLost.Reason.FORBIDDEN);
                    } else {
                        LOG.warn("unexpected reply renewing {}: {}", lease.resource(), reply);
                    }
                });
    }

    private synchronized void checkExpiry() {
        if (!closed && !client.clock().instant().isBefore(validUntil)) {
            lose(LeaseLost.Reason.EXPIRED);
        }
    }

    private void lose(LeaseLost.Reason reason) {
        if (closed) {
            return;
        }
        cancelTimers();
        if (lost.complete(new LeaseLost(lease.resource(), lease.fencingToken(), reason, client.clock().instant()))) {
            LOG.warn("lease on {} (token {}) lost: {}", lease.resource(), lease.fencingToken(), reason);
        }
    }

    private synchronized void cancelTimers() {
        if (renewal != null) {
            renewal.cancel(false);
        }
        if (expiry != null) {
            expiry.cancel(false);
        }
    }

    /**
     * Stops renewing and releases the lease (with its token), unless it was lost already. A lease
     * closed after its validity passed was lost while held, even if the timer that would have said
     * so has not run yet (a pause of the whole process ends with both due at once): {@link #lost()}
     * completes, and no release is sent that could end a new holder's lease.
     */
    @Override
    public void close() {
        closeAsync().join();
    }

    /**
     * As {@link #close()}, without waiting for the release's reply: for a caller on the client's
     * own threads (a listener), which must not block on a reply those threads deliver.
     */
    public CompletableFuture<Void> closeAsync() {
        synchronized (this) {
            if (closed) {
                return CompletableFuture.completedFuture(null);
            }
            checkExpiry();
            closed = true;
        }
        cancelTimers();
        if (isLost()) {
            return CompletableFuture.completedFuture(null);
        }
        return client.release(lease.resource(), lease.owner(), OptionalLong.of(lease.fencingToken()))
                .handle((reply, error) -> {
                    if (error != null) {
                        // The lease will expire on its own; the next holder gets a greater token either way.
                        LOG.warn("releasing {} failed; it will expire at {}: {}", lease.resource(), lease.expiresAt(),
                                error.getMessage());
                    }
                    return null;
                });
    }
}
