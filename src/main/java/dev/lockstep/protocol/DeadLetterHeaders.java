package dev.lockstep.protocol;

import java.util.Set;

/**
 * The headers a dead letter carries beside the command record's own (docs/protocol.md): why it
 * could not be answered, where it came from, and the reply it got when it was decided but the
 * reply could not be delivered.
 */
public final class DeadLetterHeaders {

    public static final String ERROR = "lockstep-error";
    public static final String SOURCE = "lockstep-source";
    public static final String REPLY = "lockstep-reply";
    /** What the worker added: dropped when a dead letter is published to the command topic again. */
    public static final Set<String> ADDED = Set.of(ERROR, SOURCE, REPLY);

    private DeadLetterHeaders() {
    }
}
