package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The loop behind {@link LockClient#tryAcquire}. Each attempt waits in the resource's queue for
 * what is left of the wait (at most {@link Limits#MAX_WAIT}): the worker grants it when its turn
 * comes, so the caller sends one command, not a poll. An attempt that timed out is sent again with
 * the same request ID (the worker applies it at most once, and a retry of one that waits only
 * waits); one whose wait ended with time left queues again; one refused without waiting (a full
 * queue, a quarantine) is followed by a new one after a jittered backoff. When the wait is over
 * with the last attempt unanswered, it is cancelled: it leaves the queue, or a lease it may yet be
 * granted is released right after, not left to block the resource for its TTL.
 *
 * <p>A lease's local validity runs from the <em>first</em> send of the request that got it (a
 * retry's reply may answer the first send, applied by the worker any time after it) plus, for a
 * grant after a wait, the log time it waited ({@link Verdict.Acquired#waited()}): the acquire's
 * record came after its first send, and the grant that long after the record.
 */
final class AcquireAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(AcquireAttempts.class);

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

    private final LockClient client;
    private final String resource;
    private final String owner;
    private final Duration ttl;
    private final Share share;
    private final Optional<String> value;
    private final Instant deadline;
    private final CompletableFuture<Optional<HeldLease>> result = new CompletableFuture<>();
    private Duration backoff = FIRST_BACKOFF;
    /** The acquire attempted now (sent again as it is: the same request ID asks the same), and when it was first sent. */
    private Command.Acquire current;
    private MonotonicInstant firstSent;
    private boolean abandoned;
    /**
     * The acquires whose grants came too late to act on, since the last lease handed over: their
     * leases may be live still (extended by the next attempt, same owner, same token), so a caller
     * that gives up cancels them too (a cancellation of the extending attempt releases nothing).
     */
    private final List<Command.Acquire> lateGrants = new ArrayList<>();

    AcquireAttempts(LockClient client, String resource, String owner, Duration ttl, Share share, Instant deadline) {
        this(client, resource, owner, ttl, share, Optional.empty(), deadline);
    }

    /** @param value what the lease publishes (a leader's address) */
    AcquireAttempts(LockClient client, String resource, String owner, Duration ttl, Share share,
            Optional<String> value, Instant deadline) {
        this.client = client;
        this.resource = resource;
        this.owner = owner;
        this.ttl = ttl;
        this.share = share;
        this.value = value;
        this.deadline = deadline;
    }

    /**
     * Starts. A caller that completes the result otherwise than with what it got (cancels it,
     * gives it a timeout) gives up, as {@link #abandon()} does.
     */
    CompletableFuture<Optional<HeldLease>> start() {
        result.whenComplete((held, error) -> {
            if (error != null) {
                givenUp();
            }
        });
        attempt(LockClient.newRequestId());
        return result;
    }

    /**
     * The caller gives up before the result came: the acquire attempted now is cancelled (it
     * leaves the queue, or the lease it was granted is released right after), no other is sent,
     * and the result is empty. Completes once the broker has the cancellation.
     */
    synchronized CompletableFuture<Void> abandon() {
        if (abandoned || result.isDone()) {
            return CompletableFuture.completedFuture(null);
        }
        result.complete(Optional.empty());
        return givenUp();
    }

    /** No other attempt is sent; the one attempted now is cancelled, and so are those granted too late. */
    private synchronized CompletableFuture<Void> givenUp() {
        if (abandoned) {
            return CompletableFuture.completedFuture(null);
        }
        abandoned = true;
        List<CompletableFuture<Void>> cancelled = new ArrayList<>();
        lateGrants.forEach(late -> cancelled.add(client.cancelled(late)));
        if (current != null && !lateGrants.contains(current)) {
            cancelled.add(client.cancelled(current));
        }
        return CompletableFuture.allOf(cancelled.toArray(CompletableFuture[]::new));
    }

    private synchronized void attempt(String id) {
        if (abandoned) {
            return;
        }
        if (current == null || !id.equals(current.requestId())) {
            current = new Command.Acquire(id, resource, owner, ttl, queueing(), share, value);
            firstSent = client.monotonicClock().now();
        }
        MonotonicInstant sentAt = firstSent;
        Command.Acquire acquire = current;
        client.request(acquire, client.settings().requestTimeout().plus(acquire.maxWait()))
                .whenComplete((reply, error) -> onReply(acquire, sentAt, reply, error));
    }

    /** How long a new attempt waits in the queue: what is left, within the protocol's bound. */
    private Duration queueing() {
        return min(remaining().truncatedTo(ChronoUnit.MILLIS), Limits.MAX_WAIT);
    }

    private void onReply(Command.Acquire acquire, MonotonicInstant sentAt, ReplyMessage message, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        synchronized (this) {
            if (abandoned) {
                // Its cancellation is published: a grant this acquire got is released by it.
                return;
            }
        }
        if (cause instanceof LockTimeoutException && !remaining().isZero()) {
            attempt(acquire.requestId());
        } else if (cause instanceof LockTimeoutException) {
            givenUp().whenComplete((published, failed) -> result.completeExceptionally(
                    new LockTimeoutException(acquire.requestId(), client.settings().requestTimeout(), failed == null)));
        } else if (cause != null) {
            // The acquire may be in the log (a reply reader that failed, a publish whose outcome is
            // unknown): cancelled, so a grant it gets later does not block the resource for its TTL.
            givenUp().whenComplete((published, failed) -> result.completeExceptionally(cause));
        } else if (message.reply() instanceof Verdict.Acquired acquired) {
            MonotonicInstant received = client.monotonicClock().now();
            // Begun no earlier than the first send plus the wait in log time, and no later than the
            // reply came: a log clock that ran fast over the wait cannot date it later than that.
            MonotonicInstant began = earlier(acquired.waited().map(sentAt::plus).orElse(sentAt), received);
            if (!received.isBefore(began.plus(HeldLease.validFor(ttl, client.settings())))) {
                lateGrant(acquire, acquired);
                return;
            }
            if (!client.isOpen()) {
                // Came as the client closed: nothing would renew it. Given up on, so it is cancelled.
                synchronized (this) {
                    lateGrants.add(acquire);
                }
                result.completeExceptionally(client.failure().orElseGet(
                        () -> new LockClientException("the client is closed")));
                return;
            }
            HeldLease held = HeldLease.start(client, acquired.lease(), ttl, began);
            synchronized (this) {
                lateGrants.clear(); // the lease handed over is the caller's to close, that token's too
            }
            if (!result.complete(Optional.of(held))) {
                // Abandoned since the check above: the caller has nothing, so nobody would close it.
                held.closeAsync();
            }
        } else if (message.reply() instanceof Verdict.NotAcquired notAcquired
                && notAcquired.reason().filter(end -> end == WaitEnd.WAIT_EXPIRED).isPresent()) {
            if (remaining().isZero()) {
                result.complete(Optional.empty());
            } else {
                attempt(LockClient.newRequestId());
            }
        } else if (message.reply() instanceof Verdict.NotAcquired notAcquired) {
            retryAfter(notAcquired.retryAfter());
        } else if (message.reply() instanceof Verdict.Invalid invalid) {
            result.completeExceptionally(new InvalidCommandException(invalid.problem()));
        } else {
            result.completeExceptionally(new LockClientException("unexpected reply to acquire: " + message.json()));
        }
    }

    /**
     * A grant whose reply came after its local validity (a worker that took over, a link that
     * healed): not handed to the caller, who could not act on it. While the wait lasts, acquired
     * again: extended from a send of its own, or granted anew. Otherwise cancelled, so the lease the
     * log gave it does not block the resource for its TTL with nobody holding it.
     */
    private void lateGrant(Command.Acquire acquire, Verdict.Acquired acquired) {
        LOG.debug("the grant of {} (token {}) came after its local validity", resource, acquired.lease().fencingToken());
        synchronized (this) {
            lateGrants.add(acquire);
        }
        if (remaining().isZero()) {
            givenUp().whenComplete((published, failed) -> result.complete(Optional.empty()));
        } else {
            attempt(LockClient.newRequestId());
        }
    }

    private void retryAfter(Duration holderRemaining) {
        Duration left = remaining();
        if (left.isZero()) {
            result.complete(Optional.empty());
            return;
        }
        long jitter = ThreadLocalRandom.current().nextLong(backoff.toMillis() / 2 + 1);
        Duration delay = min(min(holderRemaining, backoff).plusMillis(jitter), left);
        backoff = min(backoff.multipliedBy(2), MAX_BACKOFF);
        client.after(delay).whenComplete((ignored, closed) -> {
            if (closed == null) {
                attempt(LockClient.newRequestId());
            } else {
                result.completeExceptionally(closed); // gives up: a grant that came too late is cancelled
            }
        });
    }

    private Duration remaining() {
        Duration left = Duration.between(client.clock().instant(), deadline);
        return left.isNegative() ? Duration.ZERO : left;
    }

    private static MonotonicInstant earlier(MonotonicInstant a, MonotonicInstant b) {
        return a.isBefore(b) ? a : b;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
