package dev.lockstep.core;

import java.util.Optional;

/** Every answer a command can get, with the name it has on the wire. */
public enum Outcome {
    ACQUIRED("acquired"),
    NOT_ACQUIRED("not_acquired"),
    RENEWED("renewed"),
    RELEASED("released"),
    LOCKED("locked"),
    NOT_FOUND("not_found"),
    FORBIDDEN("forbidden"),
    INVALID("invalid"),
    /** Not this partition's resource (the command topic grew, or the record was misrouted): send it again where the reply says. */
    MOVED("moved");

    private final String wireName;

    Outcome(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<Outcome> fromWireName(String name) {
        for (Outcome outcome : values()) {
            if (outcome.wireName.equals(name)) {
                return Optional.of(outcome);
            }
        }
        return Optional.empty();
    }
}
