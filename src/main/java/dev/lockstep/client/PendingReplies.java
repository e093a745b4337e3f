package dev.lockstep.client;

import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests waiting for a reply, by request ID. A retry with the same ID while the first
 * waits shares its future; a finished future is never handed out again, so the next request
 * with that ID (an idempotent retry, or a reused ID the worker rejects) waits for its own reply.
 */
final class PendingReplies {

    private final Map<String, CompletableFuture<ReplyMessage>> waiting = new ConcurrentHashMap<>();

    CompletableFuture<ReplyMessage> expect(String requestId) {
        CompletableFuture<ReplyMessage> future = waiting.compute(requestId,
                (id, current) -> current == null || current.isDone() ? new CompletableFuture<>() : current);
        future.whenComplete((reply, error) -> waiting.remove(requestId, future));
        return future;
    }

    /** Completes the request's future off the caller's thread; a reply nobody waits for is dropped. */
    void deliver(ReplyMessage message) {
        // Removed before it completes: a caller's continuation may run first and send the ID again.
        CompletableFuture<ReplyMessage> future = waiting.remove(message.requestId());
        if (future != null) {
            future.completeAsync(() -> message);
        }
    }

    int size() {
        return waiting.size();
    }
}
