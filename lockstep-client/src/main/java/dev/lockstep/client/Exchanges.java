package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A command out and its reply back, within a timeout: the reply is expected before the command is
 * published, the publication's failure fails it, and an acquire given up on is cancelled. Behind
 * {@link LockClient}'s calls.
 */
final class Exchanges {

    /** A command in flight: its reply, and its publication's acknowledgement by the broker. */
    record Exchange(CompletableFuture<ReplyMessage> reply, CompletableFuture<Void> published) {
    }

    private final CommandPublisher publisher;
    private final ReplyListener replies;
    private final ScheduledExecutorService scheduler;

    Exchanges(CommandPublisher publisher, ReplyListener replies, ScheduledExecutorService scheduler) {
        this.publisher = publisher;
        this.replies = replies;
        this.scheduler = scheduler;
    }

    Exchange exchange(Command command, Duration timeout) {
        return exchange(command.requestId(), CommandEncoder.key(command), CommandEncoder.encode(command, Optional.empty()),
                Expected.of(command), timeout);
    }

    Exchange exchange(String requestId, byte[] key, byte[] value, Expected expected, Duration timeout) {
        Optional<LockClientException> unreadable = replies.failure();
        if (unreadable.isPresent()) {
            // Nothing is published whose reply nobody could read: an acquire would be granted unseen.
            return new Exchange(CompletableFuture.failedFuture(unreadable.get()),
                    CompletableFuture.failedFuture(unreadable.get()));
        }
        CompletableFuture<ReplyMessage> reply;
        try {
            reply = replies.expect(requestId, expected, value);
        } catch (RequestIdInUseException e) {
            return new Exchange(CompletableFuture.failedFuture(e), CompletableFuture.failedFuture(e));
        }
        CompletableFuture<Void> published = publisher.publish(key, value, replies.partition());
        published.whenComplete((ignored, failed) -> {
            if (failed != null) {
                reply.completeExceptionally(failed);
            }
        });
        try {
            ScheduledFuture<?> timer = scheduler.schedule(
                    () -> reply.completeExceptionally(new LockTimeoutException(requestId, timeout)),
                    timeout.toMillis(), TimeUnit.MILLISECONDS);
            reply.whenComplete((message, error) -> timer.cancel(false));
        } catch (RejectedExecutionException e) {
            // The client closed since the check above: failed as the requests it found waiting.
            replies.failure().ifPresentOrElse(reply::completeExceptionally,
                    () -> reply.completeExceptionally(new LockClientException("the client is closed", e)));
        }
        return new Exchange(reply, published);
    }

    /**
     * An acquire whose reply does not come in time, or can no longer be read, is cancelled: a lease
     * it may yet be granted must not block the resource for its TTL. The reply's future fails once
     * the broker has the cancellation.
     */
    CompletableFuture<ReplyMessage> cancellingOnTimeout(Command.Acquire acquire, Duration timeout) {
        Exchange exchange = exchange(acquire, timeout);
        return exchange.reply().exceptionallyCompose(error -> {
            Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
            // A published acquire whose reply can no longer be read is given up on too (see LockClient.failure()).
            boolean unread = replies.failure().filter(cause::equals).isPresent()
                    && !exchange.published().isCompletedExceptionally();
            if (!(cause instanceof LockTimeoutException) && !unread) {
                return CompletableFuture.failedFuture(cause);
            }
            return cancelAcquire(acquire.requestId(), acquire.resource(), acquire.owner()).handle((published, failed) -> {
                if (unread) {
                    throw (LockClientException) cause;
                }
                throw new LockTimeoutException(acquire.requestId(), timeout, failed == null);
            });
        });
    }

    /** Publishes the cancellation of the acquire {@code requestId}; its reply is not waited for. */
    CompletableFuture<Void> cancelAcquire(String requestId, String resource, String owner) {
        Command.Release cancel = new Command.Release(LockClient.newRequestId(), resource, owner, OptionalLong.empty(),
                Optional.of(requestId));
        return publisher.publish(CommandEncoder.key(cancel), CommandEncoder.encode(cancel, Optional.empty()),
                replies.partition());
    }
}
