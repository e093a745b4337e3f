package dev.lockstep.core;

/** Every answer a command can get, with the name it has on the wire. */
public enum Outcome {
    ACQUIRED("acquired"),
    NOT_ACQUIRED("not_acquired"),
    RENEWED("renewed"),
    RELEASED("released"),
    LOCKED("locked"),
    NOT_FOUND("not_found"),
    FORBIDDEN("forbidden"),
    INVALID("invalid");

    private final String wireName;

    Outcome(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }
}
