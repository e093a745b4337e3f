package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.protocol.Reply;
import java.util.Optional;

/** What to do with one command record, decided before any database work. */
sealed interface Triaged {

    /** Cannot be answered: no request ID, no route, or no JSON object. */
    record DeadLetter(String reason) implements Triaged {
    }

    /** A command that gets a reply, on this route. */
    sealed interface Answered extends Triaged {

        ReplyRoute route();

        /** The command's {@code kafka_correlationId} header, copied onto the reply unchanged. */
        Optional<byte[]> correlationId();

        String requestId();

        default Outbound.ReplyRecord reply(Inbound source, byte[] value) {
            return new Outbound.ReplyRecord(source, route(), requestId(), value, correlationId());
        }
    }

    /** Answerable without the database: an invalid command. */
    record Reject(ReplyRoute route, Optional<byte[]> correlationId, Reply.Rejected rejection) implements Answered {
        @Override
        public String requestId() {
            return rejection.requestId();
        }
    }

    /** A valid command for the arbiter. */
    record Apply(ReplyRoute route, Optional<byte[]> correlationId, Command command) implements Answered {
        @Override
        public String requestId() {
            return command.requestId();
        }
    }
}
