package dev.lockstep.engine;

import dev.lockstep.core.CommandType;
import dev.lockstep.core.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/** A record the worker publishes as the result of one command record. */
public sealed interface Outbound {

    /** The command record this answers. */
    Inbound source();

    /**
     * @param source the record that decided the reply, and publishes it
     * @param requestOffset the offset of the record whose request it answers: the source's own,
     *     or, for an acquire that waited, the acquire's
     * @param correlationId the command's {@code kafka_correlationId} header, copied unchanged
     * @param answer what the reply is, for the operator's counters
     */
    record ReplyRecord(Inbound source, long requestOffset, ReplyRoute route, String requestId, byte[] value,
            Optional<byte[]> correlationId, Answer answer) implements Outbound {

        /** Whether it answers an acquire that waited: decided, and published, by a later record. */
        public boolean deferred() {
            return requestOffset != source.offset();
        }

        /** The reply could not be delivered where it was routed: it goes to the dead letters instead. */
        public DeadLetter undeliverable(String reason) {
            return new DeadLetter(source, reason, Cause.REPLY_UNDELIVERABLE, Optional.of(this));
        }
    }

    /** What a reply is, for counting: never a resource, an owner or a request ID. */
    sealed interface Answer {

        /** Decided by this record: the command's type (when it could be read) and the outcome. */
        record Decided(Optional<CommandType> type, Outcome outcome) implements Answer {
        }

        /** A stored reply sent again: a request ID retried within the retention, or a record fetched again. */
        record Repeated(Optional<CommandType> type) implements Answer {
        }
    }

    /** Why a record was dead-lettered, as a bounded set (the reason text says more). */
    enum Cause {
        /** The record carries no log-append time. */
        NO_LOG_APPEND_TIME,
        /** Not a readable command: too large, not strict UTF-8, not a JSON object, no request ID. */
        UNREADABLE,
        /** The reply's route is not allowed or malformed. */
        ROUTE_REFUSED,
        /** A record fetched again, or marked undeliverable, whose stored reply was swept. */
        REPLY_GONE,
        /** The worker found the reply's topic or partition missing, and wrote so into the partition. */
        REPLY_UNDELIVERABLE;

        /** The lower-case name, as a metric label. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A lease change the record made or showed, for the events topic: published to the command's
     * partition number, keyed by resource.
     */
    record Event(Inbound source, EventEntry entry) implements Outbound {

        public byte[] value() {
            return entry.value().getBytes(StandardCharsets.UTF_8);
        }
    }

    /**
     * A hand-over ({@link dev.lockstep.protocol.HandOver}) to append to the source's partition:
     * after the source, the resource has room for its first {@code count} waiters, each granted by
     * a record of its own; this is the {@code index}-th (from 1) of that run. Not a reply: nobody
     * is told anything by it.
     */
    record HandOver(Inbound source, String resource, int index, int count) implements Outbound {
    }

    /**
     * A growth's record ({@link dev.lockstep.protocol.Growth}) to append to another partition of
     * the command topic, after the source was applied: a carry, keyed by its resource, or a taken.
     *
     * @param partition the partition to append it to
     * @param key the resource, for a carry
     */
    record Transfer(Inbound source, int partition, Optional<String> key, String header, byte[] headerValue,
            byte[] value) implements Outbound {
    }

    /**
     * The command record, byte for byte, with the reason it could not be answered.
     *
     * @param reply the reply the command got, when it was decided but could not be delivered
     */
    record DeadLetter(Inbound source, String reason, Cause cause, Optional<ReplyRecord> reply) implements Outbound {

        public DeadLetter(Inbound source, String reason, Cause cause) {
            this(source, reason, cause, Optional.empty());
        }
    }
}
