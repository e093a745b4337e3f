package dev.lockstep.core;

import java.util.List;
import java.util.stream.Collectors;

/** The body of an {@code invalid} reply, in the spirit of RFC 9457 problem details. */
public record Problem(String type, String title, String detail, List<FieldError> errors) {

    public static final String INVALID_COMMAND = "urn:lockstep:problem:invalid-command";

    public Problem {
        errors = List.copyOf(errors);
    }

    public static Problem invalidCommand(List<FieldError> errors) {
        String detail = errors.stream()
                .map(e -> e.field() + ": " + e.message())
                .collect(Collectors.joining("; "));
        return new Problem(INVALID_COMMAND, "Invalid command", detail, errors);
    }
}
