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
 * the holder's lease ends.
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

    private void attempt(String requestId) {
        Instant sentAt = client.clock().instant();
        client.send(new Command.Acquire(requestId, resource, owner, ttl))
                .whenComplete((reply, error) -> onReply(requestId, sentAt, reply, error));
    }

    private void onReply(String requestId, Instant sentAt, ReplyMessage message, Throwable error) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        if (cause instanceof LockTimeoutException && !remaining().isZero()) {
            attempt(requestId);
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
