package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Outcome;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import java.util.Optional;

/** What to do with one command record, decided before any database work. */
sealed interface Triaged {

    /** Cannot be answered: no request ID, no route, or no JSON object. */
    record DeadLetter(String reason, Outbound.Cause cause) implements Triaged {

        Outbound.DeadLetter of(Inbound source) {
            return new Outbound.DeadLetter(source, reason, cause);
        }
    }

    /** A command that gets a reply, on this route. */
    sealed interface Answered extends Triaged {

        ReplyRoute route();

        /** The command's {@code kafka_correlationId} header, copied onto the reply unchanged. */
        Optional<byte[]> correlationId();

        String requestId();

        default Outbound.ReplyRecord reply(Inbound source, byte[] value, Outbound.Answer answer) {
            return new Outbound.ReplyRecord(source, source.offset(), route(), requestId(), value, correlationId(),
                    answer);
        }
    }

    /** Answerable without the database: an invalid command. */
    record Reject(ReplyRoute route, Optional<byte[]> correlationId, Reply.Rejected rejection) implements Answered {
        @Override
        public String requestId() {
            return rejection.requestId();
        }

        Outbound.ReplyRecord reply(Inbound source) {
            return reply(source, ReplyEncoder.encode(rejection), new Outbound.Answer.Decided(rejection.type(), Outcome.INVALID));
        }
    }

    /**
     * The worker's note that the reply of an earlier record of this partition could not be
     * delivered: a copy of that record (so it reads as the same command) naming its offset.
     *
     * @param marked how the earlier record was triaged: the same, since it is the same record
     * @param offset the earlier record's offset
     * @param reason why the reply could not be delivered, as the worker found it
     */
    record Undelivered(Answered marked, long offset, String reason) implements Triaged {
    }

    /**
     * The reply to an acquire that waited, as a mark names it ({@link dev.lockstep.protocol.DeadLetterHeaders#REPLY_REQUEST}):
     * its request ID, and its route as the mark carries it.
     */
    record Waited(ReplyRoute route, Optional<byte[]> correlationId, String requestId) implements Answered {
    }

    /**
     * A tick the worker appended ({@link dev.lockstep.protocol.Tick}): time passes by it, measured
     * by the worker when it says so; never answered.
     */
    record Tick(Optional<dev.lockstep.protocol.Tick.Measured> measured) implements Triaged {
    }

    /**
     * A hand-over the worker appended ({@link dev.lockstep.protocol.HandOver}): the resource's first
     * waiter is granted at it when the rules let it; never answered.
     *
     * @param last whether it is the last of its run: only the last asks for the next run
     */
    record HandOver(String resource, boolean last) implements Triaged {
    }

    /** A valid command for the arbiter. */
    record Apply(ReplyRoute route, Optional<byte[]> correlationId, Command command) implements Answered {
        @Override
        public String requestId() {
            return command.requestId();
        }
    }

    /** A seal ({@link dev.lockstep.protocol.Growth#SEAL}): route by {@code partitions} from here on. */
    record Seal(int from, int partitions) implements Triaged {
    }

    /** A carry ({@link dev.lockstep.protocol.Growth#CARRY}): a part of {@code resource}'s state at partition {@code from}'s seal. */
    record Carry(int from, long seal, int partitions, String resource, byte[] json) implements Triaged {
    }

    /** A taken ({@link dev.lockstep.protocol.Growth#TAKEN}): partition {@code from} carried all it hands here. */
    record Taken(int from, long seal, int partitions, long tokenBound) implements Triaged {
    }
}
