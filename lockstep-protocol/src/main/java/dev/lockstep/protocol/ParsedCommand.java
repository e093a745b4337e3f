package dev.lockstep.protocol;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Problem;
import java.util.List;
import java.util.Optional;

/** The result of reading one command record. */
public sealed interface ParsedCommand {

    /** No reply is possible (no JSON object, or no usable {@code request_id}): dead-letter it. */
    record Unreadable(String reason) implements ParsedCommand {
    }

    /** A command with a usable {@code request_id}: it gets a reply if its route is allowed. */
    sealed interface Answerable extends ParsedCommand {

        String requestId();

        ReplyTo replyTo();
    }

    record Valid(String requestId, ReplyTo replyTo, Command command) implements Answerable {
    }

    /**
     * Answerable, but wrong: the caller gets an {@code invalid} reply listing every problem.
     *
     * @param type the command type when it was valid
     * @param resource the resource when it was valid
     */
    record Invalid(String requestId, ReplyTo replyTo, Optional<CommandType> type, Optional<String> resource,
            List<FieldError> errors) implements Answerable {

        public Invalid {
            errors = List.copyOf(errors);
        }

        public Problem problem() {
            return Problem.invalidCommand(errors);
        }
    }
}
