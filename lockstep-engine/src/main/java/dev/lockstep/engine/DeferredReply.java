package dev.lockstep.engine;

import dev.lockstep.core.CommandType;
import dev.lockstep.core.Outcome;
import java.util.Objects;
import java.util.Optional;

/**
 * The one reply of an acquire that waited, made by the later record that decided it (the hand-over
 * that granted it, or the record that showed its wait ended): published with that record's own,
 * and kept with its events until the broker acknowledged them, so that the record fetched again
 * publishes it again, byte for byte.
 *
 * @param offset the deciding record's offset
 * @param index its place among that record's deferred replies
 * @param requestOffset the waiting acquire's own offset: the record whose request the reply answers
 */
public record DeferredReply(long offset, int index, String requestId, long requestOffset, ReplyRoute route,
        Optional<byte[]> correlationId, StoredReply reply, Outcome outcome) {

    public DeferredReply {
        Objects.requireNonNull(requestId, "requestId");
        Objects.requireNonNull(route, "route");
        Objects.requireNonNull(correlationId, "correlationId");
        Objects.requireNonNull(reply, "reply");
        Objects.requireNonNull(outcome, "outcome");
    }

    /** The reply as published, for the record that decided it. */
    Outbound.ReplyRecord publishedFor(Inbound source) {
        return new Outbound.ReplyRecord(source, requestOffset, route, requestId, reply.bytes(), correlationId,
                new Outbound.Answer.Decided(Optional.of(CommandType.ACQUIRE), outcome));
    }
}
