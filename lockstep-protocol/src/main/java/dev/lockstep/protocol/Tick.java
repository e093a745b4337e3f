package dev.lockstep.protocol;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A tick: a record the worker appends to a command partition when a deadline there falls due (a
 * lease ends) and no other record may come to show it. Log time advances only with a record's
 * log-append time, so the tick is what lets the partition's state machine see the deadline pass,
 * decided from the log as any record is, and by a replay the same way (docs/protocol.md, "Ticks").
 *
 * <p>Its shape: no key, no value, and the header {@value #HEADER} holding the deadline it was
 * appended for (ISO-8601). The deadline is the worker's note for a reader of the log; no decision
 * depends on it: a tick decides nothing but what its log-append time shows, as any record does.
 */
public final class Tick {

    public static final String HEADER = "lockstep-tick";
    /** The longest header value a tick has: an ISO-8601 instant with nanoseconds is 30 bytes. */
    static final int MAX_HEADER_BYTES = 64;

    private Tick() {
    }

    /** The header's value for a tick appended for {@code due}. */
    public static byte[] headerValue(Instant due) {
        return due.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Why a record carrying the tick header is not a tick (a producer's forgery, or a mistake);
     * empty when it is one.
     *
     * @param key the record's key, {@code null} when it has none
     * @param value the record's value, {@code null} when it has none
     * @param header the last tick header's value
     * @param headerCount how many tick headers the record carries
     */
    public static Optional<String> malformed(byte[] key, byte[] value, byte[] header, int headerCount) {
        if (key != null && key.length > 0) {
            return Optional.of("a tick (" + HEADER + " header) has no key; this record has " + key.length + " bytes");
        }
        if (value != null && value.length > 0) {
            return Optional.of("a tick (" + HEADER + " header) has no value; this record has " + value.length
                    + " bytes");
        }
        if (headerCount != 1) {
            return Optional.of("a tick carries one " + HEADER + " header; this record has " + headerCount);
        }
        if (header == null || header.length > MAX_HEADER_BYTES) {
            return Optional.of("a tick's " + HEADER + " header holds an ISO-8601 instant of at most "
                    + MAX_HEADER_BYTES + " bytes");
        }
        try {
            Instant.parse(new String(header, StandardCharsets.UTF_8));
            return Optional.empty();
        } catch (DateTimeParseException e) {
            return Optional.of("a tick's " + HEADER + " header holds an ISO-8601 instant; this one does not parse");
        }
    }
}
