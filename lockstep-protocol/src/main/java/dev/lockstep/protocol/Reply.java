package dev.lockstep.protocol;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Outcome;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import java.util.List;
import java.util.Optional;

/** One reply, before encoding: either the arbiter's verdict on a valid command, or a rejection. */
public sealed interface Reply {

    String requestId();

    Outcome outcome();

    record Decided(Command command, Verdict verdict) implements Reply {
        @Override
        public String requestId() {
            return command.requestId();
        }

        @Override
        public Outcome outcome() {
            return verdict.outcome();
        }
    }

    record Rejected(String requestId, Optional<CommandType> type, Optional<String> resource, Problem problem)
            implements Reply {

        public static Rejected of(ParsedCommand.Invalid invalid) {
            return new Rejected(invalid.requestId(), invalid.type(), invalid.resource(), invalid.problem());
        }

        /** A command whose {@code request_id} was already used by a different command. */
        public static Rejected reusedRequestId(Command command) {
            return new Rejected(command.requestId(), Optional.of(command.type()), Optional.of(command.resource()),
                    Problem.invalidCommand(List.of(new FieldError("request_id",
                            "was already used by a different command; use a new request_id for a new command"))));
        }

        @Override
        public Outcome outcome() {
            return Outcome.INVALID;
        }
    }
}
