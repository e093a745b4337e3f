package dev.lockstep.protocol;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The records a growth of the command topic is decided by (docs/architecture.md, "Growing the
 * command topic"). The worker appends them; each is a command-topic record with one header and
 * nothing a producer's command carries.
 *
 * <ul>
 *   <li>A <b>seal</b> ({@value #SEAL}: {@code from=F;partitions=T}) on every partition below
 *       {@code T}: from it on the partition routes resources by {@code T} partitions, and the
 *       state of each resource that leaves it is carried to its new partition.
 *   <li>A <b>carry</b> ({@value #CARRY}: {@code from=P;seal=S;partitions=T}), keyed by its resource, on the
 *       resource's new partition: one part of the resource's state at the seal at offset {@code S}
 *       of partition {@code P} (its leases, or one of its waiters), as JSON.
 *   <li>A <b>taken</b> ({@value #TAKEN}: {@code from=P;seal=S;partitions=T;token_bound=B}) on each partition
 *       that takes resources over from {@code P}, after {@code P}'s carries to it: from it on, the
 *       partition decides them, with tokens above {@code B}.
 * </ul>
 */
public final class Growth {

    public static final String SEAL = "lockstep-seal";
    public static final String CARRY = "lockstep-carry";
    public static final String TAKEN = "lockstep-taken";
    /** The headers' names, for a record that carries more than one of them. */
    public static final List<String> HEADERS = List.of(SEAL, CARRY, TAKEN);
    /** The longest header: a few numbers. */
    static final int MAX_HEADER_BYTES = 128;

    private Growth() {
    }

    public static byte[] sealHeader(int from, int partitions) {
        return ("from=" + from + ";partitions=" + partitions).getBytes(StandardCharsets.UTF_8);
    }

    /** @param partitions the count the growth routes by: a carry of another growth is not this one's */
    public static byte[] carryHeader(int from, long seal, int partitions) {
        return ("from=" + from + ";seal=" + seal + ";partitions=" + partitions).getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] takenHeader(int from, long seal, int partitions, long tokenBound) {
        return ("from=" + from + ";seal=" + seal + ";partitions=" + partitions + ";token_bound=" + tokenBound)
                .getBytes(StandardCharsets.UTF_8);
    }

    /** What a record with one of the growth headers is. */
    public sealed interface Read {

        /** From here on the partition routes by {@code partitions}; it routed by {@code from}. */
        record Seal(int from, int partitions) implements Read {
        }

        /** One part of {@code resource}'s state at partition {@code from}'s seal at offset {@code seal}, growing to {@code partitions}. */
        record Carry(int from, long seal, int partitions, String resource, byte[] json) implements Read {
        }

        /** Partition {@code from} carried everything it hands this partition; it issued no token above {@code tokenBound}. */
        record Taken(int from, long seal, int partitions, long tokenBound) implements Read {
        }

        /** Not a growth record, for this reason. */
        record Malformed(String reason) implements Read {
        }
    }

    /**
     * Reads a record that carries {@code header} (one of {@link #HEADERS}).
     *
     * @param key the record's key, {@code null} when it has none
     * @param value the record's value, {@code null} when it has none
     * @param headerValue the header's last value
     * @param headerCount how many of the growth headers the record carries, all names together
     */
    public static Read read(String header, byte[] key, byte[] value, byte[] headerValue, int headerCount) {
        if (headerCount != 1 || headerValue == null || headerValue.length > MAX_HEADER_BYTES) {
            return new Read.Malformed("a growth record carries one of the headers " + String.join(", ", HEADERS)
                    + ", once, of at most " + MAX_HEADER_BYTES + " bytes");
        }
        Map<String, Long> fields = fields(new String(headerValue, StandardCharsets.UTF_8));
        return switch (header) {
            case SEAL -> seal(key, value, fields);
            case CARRY -> carry(key, value, fields);
            case TAKEN -> taken(key, value, fields);
            default -> throw new IllegalArgumentException("not a growth header: " + header);
        };
    }

    private static Read seal(byte[] key, byte[] value, Map<String, Long> fields) {
        Optional<Long> from = field(fields, "from", 1, Integer.MAX_VALUE);
        Optional<Long> partitions = field(fields, "partitions", 2, Integer.MAX_VALUE);
        if (!empty(key) || !empty(value) || fields.size() != 2 || from.isEmpty() || partitions.isEmpty()
                || from.get() >= partitions.get()) {
            return new Read.Malformed("a seal (" + SEAL + " header 'from=F;partitions=T', 0 < F < T) has no key "
                    + "and no value");
        }
        return new Read.Seal(from.get().intValue(), partitions.get().intValue());
    }

    private static Read carry(byte[] key, byte[] value, Map<String, Long> fields) {
        Optional<Long> from = field(fields, "from", 0, Integer.MAX_VALUE);
        Optional<Long> seal = field(fields, "seal", 0, Long.MAX_VALUE);
        Optional<Long> partitions = field(fields, "partitions", 2, Integer.MAX_VALUE);
        Optional<String> resource = key == null ? Optional.empty() : CommandDecoder.strictUtf8(key)
                .filter(name -> Text.checkContent(name, Limits.MAX_RESOURCE_CHARS).isEmpty());
        if (fields.size() != 3 || from.isEmpty() || seal.isEmpty() || partitions.isEmpty() || resource.isEmpty()
                || empty(value)) {
            return new Read.Malformed("a carry (" + CARRY + " header 'from=P;seal=S;partitions=T') is keyed by its "
                    + "resource and holds its state as JSON");
        }
        return new Read.Carry(from.get().intValue(), seal.get(), partitions.get().intValue(), resource.get(), value);
    }

    private static Read taken(byte[] key, byte[] value, Map<String, Long> fields) {
        Optional<Long> from = field(fields, "from", 0, Integer.MAX_VALUE);
        Optional<Long> seal = field(fields, "seal", 0, Long.MAX_VALUE);
        Optional<Long> partitions = field(fields, "partitions", 2, Integer.MAX_VALUE);
        Optional<Long> bound = field(fields, "token_bound", 0, Long.MAX_VALUE);
        if (!empty(key) || !empty(value) || fields.size() != 4 || from.isEmpty() || seal.isEmpty()
                || partitions.isEmpty() || bound.isEmpty()) {
            return new Read.Malformed("a taken (" + TAKEN + " header 'from=P;seal=S;partitions=T;token_bound=B') has "
                    + "no key and no value");
        }
        return new Read.Taken(from.get().intValue(), seal.get(), partitions.get().intValue(), bound.get());
    }

    private static boolean empty(byte[] bytes) {
        return bytes == null || bytes.length == 0;
    }

    /** {@code name=number} pairs separated by {@code ;}; a pair that is not one leaves a field the readers refuse. */
    private static Map<String, Long> fields(String text) {
        Map<String, Long> fields = new LinkedHashMap<>();
        for (String pair : text.split(";", -1)) {
            int eq = pair.indexOf('=');
            try {
                fields.put(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? null : Long.parseLong(pair.substring(eq + 1)));
            } catch (NumberFormatException e) {
                fields.put(pair.substring(0, eq), null);
            }
        }
        return fields;
    }

    private static Optional<Long> field(Map<String, Long> fields, String name, long min, long max) {
        Long value = fields.get(name);
        return value != null && value >= min && value <= max ? Optional.of(value) : Optional.empty();
    }
}
