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
    /**
     * On the mark of a reply to an acquire that waited, which a later record decided: the acquire's
     * request ID. Such a mark is no copy (the acquire's record is not at hand when the later one is
     * applied): it has an empty value, names the acquire in {@link #REPLY_OF}, and carries the
     * reply's route in the request-reply headers ({@code kafka_replyTopic} and its kin).
     */
    public static final String REPLY_REQUEST = "lockstep-reply-request";
    /** The headers of that copy, beside the command record's own. */
    public static final Set<String> MARKER = Set.of(UNDELIVERABLE, REPLY_OF, REPLY_REQUEST);
    /**
     * On a copy of a record that did not fit its topic whole (a dead letter, a mark): the size in
     * bytes and SHA-256 (hex) of the record's key, or value, where the copy carries only its start.
     */
    public static final String ORIGINAL_KEY_BYTES = "lockstep-original-key-bytes";
    public static final String ORIGINAL_KEY_SHA256 = "lockstep-original-key-sha256";
    public static final String ORIGINAL_VALUE_BYTES = "lockstep-original-value-bytes";
    public static final String ORIGINAL_VALUE_SHA256 = "lockstep-original-value-sha256";
    /** On such a copy: the record's own headers it leaves out, by name, and their size. */
    public static final String DROPPED_HEADERS = "lockstep-dropped-headers";
    /** The headers that say a copy is not whole. */
    public static final Set<String> CUT = Set.of(ORIGINAL_KEY_BYTES, ORIGINAL_KEY_SHA256, ORIGINAL_VALUE_BYTES,
            ORIGINAL_VALUE_SHA256, DROPPED_HEADERS);
    /** What the worker added: dropped when a dead letter is published to the command topic again. */
    public static final Set<String> ADDED = Set.of(ERROR, SOURCE, REPLY, UNDELIVERABLE, REPLY_OF, REPLY_REQUEST,
            ORIGINAL_KEY_BYTES,
            ORIGINAL_KEY_SHA256, ORIGINAL_VALUE_BYTES, ORIGINAL_VALUE_SHA256, DROPPED_HEADERS);

    /** Whether the record is a copy cut to fit its topic: its key or value is not the original's. */
    public static boolean cut(Headers headers) {
        return headers.lastHeader(ORIGINAL_KEY_SHA256) != null || headers.lastHeader(ORIGINAL_VALUE_SHA256) != null;
    }

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
