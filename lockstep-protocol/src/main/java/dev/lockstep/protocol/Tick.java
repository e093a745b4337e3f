package dev.lockstep.protocol;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A tick: a record the worker appends to a command partition so that time passes there when no
 * other record comes: a lease ends, or the partition's time must be measured after a record that
 * dated something (docs/protocol.md, "Ticks" and "Time").
 *
 * <p>Its shape: no key, no value, and the header {@value #HEADER}: the deadline it was appended
 * for (ISO-8601), then, from a worker that saw its previous tick acknowledged,
 * {@code ;prev=<that tick's offset>;elapsed_ms=<milliseconds on the worker's monotonic clock from
 * that acknowledgement to this send>}. The deadline is a note for a reader of the log; the
 * measurement is what moves a partition's time on when its settings keep time anchored: never
 * faster than the worker saw time pass, nor than the broker's clock.
 */
public final class Tick {

    public static final String HEADER = "lockstep-tick";
    /** The longest header value a tick has: an instant (30 bytes) and two 19-digit numbers with their names. */
    static final int MAX_HEADER_BYTES = 128;

    private static final String PREV = ";prev=";
    private static final String ELAPSED = ";elapsed_ms=";

    /**
     * What the worker measured: the time from its previous tick's acknowledgement to this tick's send.
     *
     * @param prev the previous tick's offset, as its acknowledgement gave it
     * @param elapsed the worker's monotonic time from that acknowledgement to this send
     */
    public record Measured(long prev, Duration elapsed) {

        public Measured {
            if (prev < 0 || elapsed.isNegative()) {
                throw new IllegalArgumentException("a tick measures from an offset, forward: " + prev + ", " + elapsed);
            }
        }
    }

    /** A tick's header as read: well-formed (with its measurement, if any) or not. */
    public sealed interface Read {

        /** @param due the deadline the tick was appended for */
        record Valid(Instant due, Optional<Measured> measured) implements Read {
        }

        record Malformed(String reason) implements Read {
        }
    }

    private Tick() {
    }

    /** The header's value for a tick appended for {@code due}, measured or not. */
    public static byte[] headerValue(Instant due, Optional<Measured> measured) {
        String text = due.toString() + measured.map(m -> PREV + m.prev() + ELAPSED + m.elapsed().toMillis()).orElse("");
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * A record carrying the tick header, read: a tick, or why it is not one (a producer's
     * forgery, or a mistake).
     *
     * @param key the record's key, {@code null} when it has none
     * @param value the record's value, {@code null} when it has none
     * @param header the last tick header's value
     * @param headerCount how many tick headers the record carries
     */
    public static Read read(byte[] key, byte[] value, byte[] header, int headerCount) {
        if (key != null && key.length > 0) {
            return new Read.Malformed("a tick (" + HEADER + " header) has no key; this record has " + key.length
                    + " bytes");
        }
        if (value != null && value.length > 0) {
            return new Read.Malformed("a tick (" + HEADER + " header) has no value; this record has " + value.length
                    + " bytes");
        }
        if (headerCount != 1) {
            return new Read.Malformed("a tick carries one " + HEADER + " header; this record has " + headerCount);
        }
        if (header == null || header.length > MAX_HEADER_BYTES) {
            return new Read.Malformed("a tick's " + HEADER + " header holds an ISO-8601 instant and its measurement "
                    + "in at most " + MAX_HEADER_BYTES + " bytes");
        }
        return parse(new String(header, StandardCharsets.UTF_8));
    }

    private static Read parse(String text) {
        int measure = text.indexOf(PREV);
        try {
            Instant due = Instant.parse(measure < 0 ? text : text.substring(0, measure));
            if (measure < 0) {
                return new Read.Valid(due, Optional.empty());
            }
            String rest = text.substring(measure + PREV.length());
            int elapsed = rest.indexOf(ELAPSED);
            if (elapsed < 0) {
                return new Read.Malformed("a tick's " + HEADER + " header names its prev with " + ELAPSED.substring(1));
            }
            return new Read.Valid(due, Optional.of(new Measured(Long.parseLong(rest.substring(0, elapsed)),
                    Duration.ofMillis(Long.parseLong(rest.substring(elapsed + ELAPSED.length()))))));
        } catch (DateTimeParseException e) {
            return new Read.Malformed("a tick's " + HEADER + " header starts with an ISO-8601 instant; this one "
                    + "does not parse");
        } catch (IllegalArgumentException e) {
            return new Read.Malformed("a tick's " + HEADER + " header measures with prev=<offset>;elapsed_ms=<ms>, "
                    + "both whole numbers, not negative");
        }
    }
}
