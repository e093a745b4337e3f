package dev.lockstep.core;

import java.util.Locale;
import java.util.Optional;

/** Why an acquire that asked to wait is answered {@code not_acquired}: the reply's {@code reason}. */
public enum WaitEnd {
    /** Its wait ended, in log time, before the resource came to it. */
    WAIT_EXPIRED,
    /** The resource's queue holds the most waiters it may; the acquire did not join it. */
    QUEUE_FULL,
    /** Its caller gave up and cancelled it while it waited. */
    CANCELLED;

    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<WaitEnd> fromWire(String name) {
        for (WaitEnd end : values()) {
            if (end.wireName().equals(name)) {
                return Optional.of(end);
            }
        }
        return Optional.empty();
    }
}
