package dev.lockstep.protocol;

import java.util.Set;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The headers a dead letter carries beside the command record's own (docs/protocol.md): why it
 * could not be answered, where it came from, and the reply it got when it was decided but the
 * reply could not be delivered.
 */
public final class DeadLetterHeaders {

    public static final String ERROR = "lockstep-error";
    public static final String SOURCE = "lockstep-source";
    public static final String REPLY = "lockstep-reply";
    /**
     * On a copy of a command record that the worker writes back to the command record's own
     * partition when the reply it got cannot be delivered: why. The state machine turns that copy
     * into the dead letter, so the dead letter follows from the log (docs/protocol.md).
     */
    public static final String UNDELIVERABLE = "lockstep-undeliverable";
    /** On that copy: {@code topic-partition@offset} of the record whose reply could not be delivered. */
    public static final String REPLY_OF = "lockstep-reply-of";
    /** The headers of that copy, beside the command record's own. */
    public static final Set<String> MARKER = Set.of(UNDELIVERABLE, REPLY_OF);
    /** What the worker added: dropped when a dead letter is published to the command topic again. */
    public static final Set<String> ADDED = Set.of(ERROR, SOURCE, REPLY, UNDELIVERABLE, REPLY_OF);

    private DeadLetterHeaders() {
    }

    /** A copy of {@code headers}, in order, without those named in {@code dropped}. */
    public static RecordHeaders without(Headers headers, Set<String> dropped) {
        RecordHeaders kept = new RecordHeaders();
        for (Header header : headers) {
            if (!dropped.contains(header.key())) {
                kept.add(header);
            }
        }
        return kept;
    }
}
