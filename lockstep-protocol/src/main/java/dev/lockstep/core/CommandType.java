package dev.lockstep.core;

import java.util.Optional;

/** The four commands, with the names they have on the wire. */
public enum CommandType {
    ACQUIRE("acquire"),
    RENEW("renew"),
    RELEASE("release"),
    STATUS("status");

    // Read for every command: neither values() copied nor an Optional made per call.
    private static final CommandType[] TYPES = values();

    private final String wireName;
    private final Optional<CommandType> some;

    CommandType(String wireName) {
        this.wireName = wireName;
        this.some = Optional.of(this);
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<CommandType> fromWireName(String name) {
        for (CommandType type : TYPES) {
            if (type.wireName.equals(name)) {
                return type.some;
            }
        }
        return Optional.empty();
    }
}
