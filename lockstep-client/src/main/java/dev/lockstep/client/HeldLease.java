package dev.lockstep.client;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
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
 * {@code forbidden}, or when its local validity ends before a renewal extended it:
 * {@code ttl * (1 - safety margin)} after the last successful renewal was <em>sent</em>, or after
 * the grant's start as this client dates it (its acquire's first send plus the time it waited in
 * the queue, which the grant reports in log time, but never later than the reply came). It is
 * measured on a monotonic clock, which never
 * runs ahead of the worker's view of that lease as long as the clocks' rates differ by less than
 * the margin (docs/client.md, "The clock assumption").
 */
public final class HeldLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HeldLease.class);

    private final LockClient client;
    private final Duration ttl;
    private final CompletableFuture<LeaseLost> lost = new CompletableFuture<>();
    private final LocalValidity validity;
    private volatile Lease lease;
    private volatile boolean closed;
    private ScheduledFuture<?> renewal;

    private HeldLease(LockClient client, Lease lease, Duration ttl, MonotonicInstant began) {
        this.client = client;
        this.lease = lease;
        this.ttl = ttl;
        this.validity = new LocalValidity(client.monotonicClock(), client.scheduler(),
                began.plus(validFor(ttl, client.settings())), () -> lose(LeaseLost.Reason.EXPIRED));
    }

    /**
     * Takes over a granted lease: schedules its renewals and its local validity's end.
     *
     * @param began when the lease began as this client dates it, on its monotonic clock: the first
     *     send of the acquire that got it plus the time it waited in the queue, never later than
     *     the reply came
     */
    static HeldLease start(LockClient client, Lease granted, Duration ttl, MonotonicInstant began) {
        HeldLease held = new HeldLease(client, granted, ttl, began);
        if (held.validity.hasPassed()) {
            // Its reply came too late to act on: lost before anyone could hold it.
            held.lose(LeaseLost.Reason.EXPIRED);
            return held;
        }
        long every = Math.max(1, (long) (ttl.toNanos() * client.settings().renewFraction()));
        // The first renewal is due counted from the lease's start, like the local validity: a reply
        // that came slowly leaves less of the lease, not a later renewal.
        long sinceBegan = Math.max(0, began.until(client.monotonicClock().now()).toNanos());
        try {
            held.renewal = client.scheduler().scheduleAtFixedRate(held::renewNow, Math.max(0, every - sinceBegan),
                    every, TimeUnit.NANOSECONDS);
            held.validity.start();
        } catch (RejectedExecutionException e) {
            // The client closed as the grant came: nothing would renew it or say when it ends.
            held.lose(LeaseLost.Reason.EXPIRED);
        }
        return held;
    }

    /** How long a renewal's send (or the grant's start) keeps a lease valid here: the TTL less the safety margin. */
    static Duration validFor(Duration ttl, LockClientSettings settings) {
        return Duration.ofNanos((long) (ttl.toNanos() * (1 - settings.safetyMarginFraction())));
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

    /**
     * The end of the lease's local validity: until when this holder may act on it, on the client's
     * monotonic clock ({@link MonotonicClock#system()}). A renewal answered moves it on; when it
     * passes, {@link #lost()} completes ({@link LeaseLost.Reason#EXPIRED}). It comes before the
     * lease's end in the log under the clock assumption (docs/client.md), so a guard of its own (as
     * {@code lockstep exec}'s) may stop the work by then.
     */
    public MonotonicInstant validUntil() {
        return validity.end();
    }

    /**
     * Completes the moment the lease is known, or must be assumed, lost: at the latest when its
     * local validity ends ({@link #validUntil()}), even while every renewal fails or hangs. Never
     * completes for a lease closed in time.
     */
    public CompletableFuture<LeaseLost> lost() {
        return lost.copy();
    }

    /**
     * Whether the lease is known, or must be assumed, lost: read from its local validity's end
     * itself, so it is true the moment that end passes, whenever the timer that says so runs.
     */
    public boolean isLost() {
        if (!lost.isDone() && !closed && validity.hasPassed()) {
            lose(LeaseLost.Reason.EXPIRED);
        }
        return lost.isDone();
    }

    private void renewed(Lease current, MonotonicInstant sentAt) {
        lease = current;
        validity.extend(sentAt.plus(validFor(ttl, client.settings())));
    }

    private void renewNow() {
        if (closed || isLost()) {
            return;
        }
        MonotonicInstant sentAt = client.monotonicClock().now();
        client.renew(lease.resource(), lease.owner(), ttl, OptionalLong.of(lease.fencingToken()))
                .whenComplete((reply, error) -> {
                    if (error != null) {
                        LOG.warn("renewing {} failed (will retry while it is valid here, for {} more): {}",
                                lease.resource(), client.monotonicClock().now().until(validity.end()),
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
        if (!closed && validity.hasPassed()) {
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
        validity.stop();
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
