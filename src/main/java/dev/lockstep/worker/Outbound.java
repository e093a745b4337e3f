package dev.lockstep.worker;

import java.util.Optional;

/** A record the worker publishes as the result of one command record. */
public sealed interface Outbound {

    /**
     * @param correlationId the command's {@code kafka_correlationId} header, copied unchanged
     */
    record ReplyRecord(ReplyRoute route, String requestId, byte[] value, Optional<byte[]> correlationId)
            implements Outbound {
    }

    /** The command record, byte for byte, with the reason it could not be answered. */
    record DeadLetter(Inbound source, String reason) implements Outbound {
    }
}
