package dev.lockstep.core;

import java.util.Arrays;
import java.util.Optional;

/** The four commands, with the names they have on the wire. */
public enum CommandType {
    ACQUIRE("acquire"),
    RENEW("renew"),
    RELEASE("release"),
    STATUS("status");

    private final String wireName;

    CommandType(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<CommandType> fromWireName(String name) {
        return Arrays.stream(values()).filter(t -> t.wireName.equals(name)).findFirst();
    }
}
