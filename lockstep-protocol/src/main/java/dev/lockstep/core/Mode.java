package dev.lockstep.core;

import java.util.Locale;
import java.util.Optional;

/** How a lease holds its resource: alone, or beside other shared holders. */
public enum Mode {
    /** The only holder: a lock, or a read-write lock's writer. Today's lease. */
    EXCLUSIVE,
    /** One of up to the resource's limit of holders: a semaphore's permit, or a read-write lock's reader. */
    SHARED;

    /** The name in the protocol's JSON. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Mode> fromWireName(String name) {
        for (Mode mode : values()) {
            if (mode.wireName().equals(name)) {
                return Optional.of(mode);
            }
        }
        return Optional.empty();
    }
}
