package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
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
    /** The longest pause before a command moved again is sent on. */
    static final Duration MOVED_PAUSE_LIMIT = Duration.ofMillis(200);

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
        CompletableFuture<ReplyMessage> reply = new CompletableFuture<>();
        CompletableFuture<Void> published;
        try {
            published = attempt(requestId, key, value, expected, OptionalInt.empty(), reply, 0);
        } catch (RequestIdInUseException e) {
            return new Exchange(CompletableFuture.failedFuture(e), CompletableFuture.failedFuture(e));
        }
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
     * One send of the command, to its key's partition or to {@code partition}; a {@code moved}
     * reply sends it again, with the same request ID, where that reply names (the command topic
     * grew: docs/protocol.md, "Growth"), until another reply answers it or the timeout does.
     *
     * @return the publication of this send
     */
    private CompletableFuture<Void> attempt(String requestId, byte[] key, byte[] value, Expected expected,
            OptionalInt partition, CompletableFuture<ReplyMessage> answer, int moves) {
        CompletableFuture<ReplyMessage> reply = replies.expect(requestId, expected, value);
        // Answered or timed out: the ID waits for this send's reply no more.
        answer.whenComplete((message, error) -> reply.cancel(false));
        CompletableFuture<Void> published = publisher.publish(key, value, replies.partition(), partition);
        published.whenComplete((ignored, failed) -> {
            if (failed != null) {
                answer.completeExceptionally(failed);
            }
        });
        reply.whenComplete((message, error) -> {
            if (error != null) {
                answer.completeExceptionally(error);
            } else if (message.reply() instanceof Verdict.Moved moved && !answer.isDone()) {
                publisher.learned(moved.partitions());
                resend(() -> attempt(requestId, key, value, expected, OptionalInt.of(moved.partition()), answer,
                        moves + 1), answer, moves);
            } else {
                answer.complete(message);
            }
        });
        return published;
    }

    /**
     * Sends a moved command on: at once the first time, then after a pause that doubles up to
     * {@link #MOVED_PAUSE_LIMIT} (a partition that awaits its resource's state sends it back to the
     * one that had it, until the state arrives).
     */
    private void resend(Runnable send, CompletableFuture<ReplyMessage> answer, int moves) {
        long pause = moves == 0 ? 0 : Math.min(MOVED_PAUSE_LIMIT.toMillis(), 5L << Math.min(moves, 10));
        try {
            scheduler.schedule(() -> {
                if (answer.isDone()) {
                    // Timed out (and an acquire cancelled) meanwhile: nothing is sent after that.
                    return;
                }
                try {
                    send.run();
                } catch (RuntimeException e) {
                    answer.completeExceptionally(e);
                }
            }, pause, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            answer.completeExceptionally(new LockClientException("the client is closed", e));
        }
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
                replies.partition(), OptionalInt.empty());
    }
}
