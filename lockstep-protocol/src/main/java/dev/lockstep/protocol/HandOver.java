package dev.lockstep.protocol;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * A hand-over: a record the worker appends to a command partition when a resource there has room
 * for more of its waiters than the record that freed it granted. One record grants a resource to
 * at most one waiter, since a grant's fencing token is its record's, and every grant has a token of
 * its own; so the worker appends a run of hand-overs, one per waiter the resource has room for,
 * and after the run's last another run while more are due (docs/protocol.md, "Hand-overs").
 *
 * <p>Its shape: the resource as key (so it lands on the resource's partition, after what freed
 * it), no value, and one header {@value #HEADER}: the record after which the waiters were due
 * ({@code topic-partition@offset}), a space, and the hand-over's place in its run ({@code 2/3}).
 * Like a tick it decides nothing by its own content: the state machine grants the resource's first
 * waiter at it when the rules let it, as it would at any record of the resource, so one a producer
 * wrote changes no outcome; only the run's last asks for the next run.
 */
public final class HandOver {

    public static final String HEADER = "lockstep-hand-over";
    /** The longest note: a topic name (249 characters), a partition and an offset. */
    static final int MAX_HEADER_BYTES = 300;

    private HandOver() {
    }

    /** The header's value for the {@code index}-th (from 1) of {@code count} hand-overs appended after the record at {@code position}. */
    public static byte[] headerValue(String position, int index, int count) {
        return (position + " " + index + "/" + count).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The resource a hand-over names, or why the record carrying the hand-over header is not one.
     *
     * @param key the record's key, {@code null} when it has none
     * @param value the record's value, {@code null} when it has none
     * @param header the last hand-over header's value
     * @param headerCount how many hand-over headers the record carries
     */
    public static Read read(byte[] key, byte[] value, byte[] header, int headerCount) {
        if (value != null && value.length > 0) {
            return new Read.Malformed("a hand-over (" + HEADER + " header) has no value; this record has "
                    + value.length + " bytes");
        }
        if (headerCount != 1 || header == null || header.length > MAX_HEADER_BYTES) {
            return new Read.Malformed("a hand-over carries one " + HEADER + " header of at most " + MAX_HEADER_BYTES
                    + " bytes");
        }
        Optional<Boolean> last = lastOfRun(new String(header, StandardCharsets.UTF_8));
        if (last.isEmpty()) {
            return new Read.Malformed("a hand-over's " + HEADER + " header ends with its place in its run, "
                    + "' i/n' with 1 <= i <= n <= " + Limits.MAX_WAITERS);
        }
        Optional<String> resource = key == null ? Optional.empty() : CommandDecoder.strictUtf8(key);
        if (resource.isEmpty()) {
            return new Read.Malformed("a hand-over's key is its resource, in UTF-8");
        }
        Optional<String> problem = Text.checkContent(resource.get(), Limits.MAX_RESOURCE_CHARS);
        return problem.<Read>map(p -> new Read.Malformed("a hand-over's key is a resource, which " + p))
                .orElseGet(() -> new Read.Resource(resource.get(), last.get()));
    }

    /** Whether the header's run place {@code i/n} is the run's last; empty when it has none. */
    private static Optional<Boolean> lastOfRun(String header) {
        int space = header.lastIndexOf(' ');
        int slash = header.lastIndexOf('/');
        if (space < 0 || slash < space) {
            return Optional.empty();
        }
        try {
            int index = Integer.parseInt(header.substring(space + 1, slash));
            int count = Integer.parseInt(header.substring(slash + 1));
            return index >= 1 && index <= count && count <= Limits.MAX_WAITERS ? Optional.of(index == count)
                    : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** What a record with the hand-over header is. */
    public sealed interface Read {

        /** A hand-over of this resource; the last of its run, or not. */
        record Resource(String name, boolean last) implements Read {
        }

        /** Not a hand-over, for this reason. */
        record Malformed(String reason) implements Read {
        }
    }
}
