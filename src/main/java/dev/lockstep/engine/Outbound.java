package dev.lockstep.engine;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** A record the worker publishes as the result of one command record. */
public sealed interface Outbound {

    /** The command record this answers. */
    Inbound source();

    /**
     * @param correlationId the command's {@code kafka_correlationId} header, copied unchanged
     */
    record ReplyRecord(Inbound source, ReplyRoute route, String requestId, byte[] value,
            Optional<byte[]> correlationId) implements Outbound {

        /** The reply could not be delivered where it was routed: it goes to the dead letters instead. */
        public DeadLetter undeliverable(String reason) {
            return new DeadLetter(source, reason, Optional.of(value));
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
     * The command record, byte for byte, with the reason it could not be answered.
     *
     * @param reply the reply the command got, when it was decided but could not be delivered
     */
    record DeadLetter(Inbound source, String reason, Optional<byte[]> reply) implements Outbound {

        public DeadLetter(Inbound source, String reason) {
            this(source, reason, Optional.empty());
        }
    }
}
