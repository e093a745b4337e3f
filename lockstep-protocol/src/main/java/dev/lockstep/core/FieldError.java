package dev.lockstep.core;

/** One reason a command is invalid: which field, and what is wrong with it. */
public record FieldError(String field, String message) {
}
