package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * The retry loop behind {@link LockClient#tryAcquire}. An attempt that timed out is sent again
 * with the same request ID (the worker applies it at most once); an attempt answered
 * {@code not_acquired} is followed by a new one after a jittered backoff that also wakes up when
 * the holder's lease ends. When the wait is over with the last attempt unanswered, it is
 * cancelled: a lease it may yet be granted is released right after, not left to block the
 * resource for its TTL.
 *
 * <p>A lease's local validity runs from the <em>first</em> send of the request that got it: a
 * retry's reply may answer the first send, applied by the worker any time after it.
 */
final class AcquireAttempts {

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(50);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(1);

    private final LockClient client;
    private final String resource;
    private final String owner;
    private final Duration ttl;
    private final Instant deadline;
    private final CompletableFuture<Optional<HeldLease>> result = new CompletableFuture<>();
    private Duration backoff = FIRST_BACKOFF;
    /** The request ID attempted now, and when it was first sent. */
    private String requestId;
    private Instant firstSent;

    AcquireAttempts(LockClient client, String resource, String owner, Duration ttl, Instant deadline) {
        this.client = client;
        this.resource = resource;
        this.owner = owner;
        this.ttl = ttl;
        this.deadline = deadline;
    }

    CompletableFuture<Optional<HeldLease>> start() {
        attempt(LockClient.newRequestId());
        return result;
    }

    private void attempt(String id) {
        if (!id.equals(requestId)) {
            requestId = id;
            firstSent = client.clock().instant();
        }
        Instant sentAt = firstSent;
        Command.Acquire acquire = new Command.Acquire(id, resource, owner, ttl);
        client.request(acquire, client.settings().requestTimeout())
                .whenComplete((reply, error) -> onReply(acquire, sentAt, reply, error));
    }

    private void onReply(Command.Acquire acquire, Instant sentAt, ReplyMessage message, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof LockTimeoutException && !remaining().isZero()) {
            attempt(acquire.requestId());
        } else if (cause instanceof LockTimeoutException) {
            client.cancelled(acquire).whenComplete((published, failed) -> result.completeExceptionally(
                    new LockTimeoutException(acquire.requestId(), client.settings().requestTimeout(), failed == null)));
        } else if (cause != null) {
            result.completeExceptionally(cause);
        } else if (message.reply() instanceof Verdict.Acquired acquired) {
            result.complete(Optional.of(HeldLease.start(client, acquired.lease(), ttl, sentAt)));
        } else if (message.reply() instanceof Verdict.NotAcquired notAcquired) {
            retryAfter(notAcquired.retryAfter());
        } else if (message.reply() instanceof Verdict.Invalid invalid) {
            result.completeExceptionally(new InvalidCommandException(invalid.problem()));
        } else {
            result.completeExceptionally(new LockClientException("unexpected reply to acquire: " + message.json()));
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
        client.scheduler().schedule(() -> attempt(LockClient.newRequestId()), delay.toMillis(), TimeUnit.MILLISECONDS);
    }

    private Duration remaining() {
        Duration left = Duration.between(client.clock().instant(), deadline);
        return left.isNegative() ? Duration.ZERO : left;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
