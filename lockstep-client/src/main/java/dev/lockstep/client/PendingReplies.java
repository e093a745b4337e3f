package dev.lockstep.client;

import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests waiting for a reply, by request ID, each with the command it sent. A retry of the
 * same command (same ID, same bytes) while the first waits shares its future; another command with
 * that ID is refused ({@link RequestIdInUseException}), since it would be handed the first one's
 * reply. A finished future is never handed out again, so the next request with that ID (an
 * idempotent retry, or a reused ID the worker rejects) waits for its own reply. A reply is
 * delivered only as the answer to the command it names ({@link Expected}); one that names another
 * fails the request with {@link ReplyMismatchException}. Once no reply can come ({@link #failAll}),
 * every request fails.
 */
final class PendingReplies {

    private record Pending(CompletableFuture<ReplyMessage> future, Expected expected, byte[] command) {
    }

    private final Map<String, Pending> waiting = new ConcurrentHashMap<>();
    private volatile Optional<LockClientException> failure = Optional.empty();

    /**
     * @param command the command record's value, exactly as published
     * @throws RequestIdInUseException when another command waits with this request ID
     */
    CompletableFuture<ReplyMessage> expect(String requestId, Expected expected, byte[] command) {
        Pending pending = waiting.compute(requestId, (id, current) -> {
            if (current == null || current.future().isDone()) {
                return new Pending(new CompletableFuture<>(), expected, command);
            }
            if (!Arrays.equals(current.command(), command)) {
                throw new RequestIdInUseException(requestId);
            }
            return current;
        });
        pending.future().whenComplete((reply, error) -> waiting.remove(requestId, pending));
        // Registered as failAll ran, it may have been missed there: fail it here.
        failure.ifPresent(cause -> pending.future().completeExceptionally(cause));
        return pending.future();
    }

    /** No reply can come any more: fails every waiting request, off the caller's thread, and every later one at once. */
    void failAll(LockClientException cause) {
        LockClientException first = failWith(cause);
        waiting.values().forEach(pending -> CompletableFuture.runAsync(
                () -> pending.future().completeExceptionally(first)));
    }

    /**
     * The client closes: fails every waiting request on the caller's thread, so that what follows
     * at once (an acquire given up on publishes its cancellation) runs before the client's producer
     * closes; and every later request at once.
     */
    void failAllNow(LockClientException cause) {
        LockClientException first = failWith(cause);
        waiting.values().forEach(pending -> pending.future().completeExceptionally(first));
    }

    /** The first cause stays: a client whose reader failed and was then closed says why it failed. */
    private synchronized LockClientException failWith(LockClientException cause) {
        if (failure.isEmpty()) {
            failure = Optional.of(cause);
        }
        return failure.get();
    }

    /** Why every request fails; empty while replies can come. */
    Optional<LockClientException> failure() {
        return failure;
    }

    /** Completes the request's future off the caller's thread; a reply nobody waits for is dropped. */
    void deliver(ReplyMessage message) {
        // Removed before it completes: a caller's continuation may run first and send the ID again.
        Pending pending = waiting.remove(message.requestId());
        if (pending == null) {
            return;
        }
        pending.expected().mismatch(message).ifPresentOrElse(
                why -> CompletableFuture.runAsync(() -> pending.future()
                        .completeExceptionally(new ReplyMismatchException(why))),
                () -> pending.future().completeAsync(() -> message));
    }

    int size() {
        return waiting.size();
    }
}
