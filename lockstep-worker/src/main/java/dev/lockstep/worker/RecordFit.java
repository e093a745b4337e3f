package dev.lockstep.worker;

import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Makes a copy of a command record (a dead letter, an undeliverable mark) fit the topic it goes
 * to. A record just under the command topic's {@code max.message.bytes}, with the worker's headers
 * added, does not fit again: written as it is, the broker refuses it, and a batch retried forever
 * on it would stall every resource of its partition. So the copy is cut, in an order that keeps
 * what its reader needs, and says what it left out: each part cut to its start carries the
 * original's size and SHA-256 ({@link DeadLetterHeaders#CUT}), so it can still be matched with the
 * record in the command topic.
 */
final class RecordFit {

    /**
     * Kafka's record batch header, and every length and delta at its longest varint: a bound the
     * broker's count never exceeds, whatever the offsets and timestamps.
     */
    private static final int BATCH_OVERHEAD = 61;
    private static final int RECORD_OVERHEAD = 5 + 1 + 10 + 5 + 5 + 5 + 5;
    private static final int HEADER_OVERHEAD = 5 + 5;
    /** The dropped headers' names are listed up to this many characters. */
    private static final int MAX_NAMES = 500;

    /** What to give up first when a copy does not fit. */
    enum Order {
        /**
         * A dead letter: its reader wants the record's headers (which may have sent it there)
         * and the start of its value; a record over the limit is most often an oversized value.
         */
        VALUE_FIRST,
        /**
         * A mark: the state machine reads its key and value again to make the dead letter, and of
         * its headers only the kept ones (the route); the others go first.
         */
        HEADERS_FIRST
    }

    private RecordFit() {
    }

    /** The most bytes the record can take in its topic, as the broker counts a batch of it alone. */
    static int size(ProducerRecord<byte[], byte[]> record) {
        int size = BATCH_OVERHEAD + RECORD_OVERHEAD + length(record.key()) + length(record.value());
        for (Header header : record.headers()) {
            size += headerSize(header);
        }
        return size;
    }

    /**
     * The record, or a copy of it cut to {@code limit} bytes in {@code order}: never a header
     * named in {@code kept}. When even those do not fit, the copy is as small as it can be and the
     * broker refuses it; the caller then has its own way out.
     */
    static ProducerRecord<byte[], byte[]> fit(ProducerRecord<byte[], byte[]> record, int limit, Set<String> kept,
            Order order) {
        if (size(record) <= limit) {
            return record;
        }
        if (order == Order.VALUE_FIRST) {
            ProducerRecord<byte[], byte[]> cut = cutKey(cutValue(record, limit), limit);
            if (size(cut) <= limit) {
                return cut;
            }
        }
        // Without the headers that may go, as much of the value and key as then fits.
        return cutKey(cutValue(withoutHeaders(record, kept), limit), limit);
    }

    /** A part of a record that can be cut to its start, and the headers that then describe the original. */
    private enum Part {
        KEY(DeadLetterHeaders.ORIGINAL_KEY_BYTES, DeadLetterHeaders.ORIGINAL_KEY_SHA256),
        VALUE(DeadLetterHeaders.ORIGINAL_VALUE_BYTES, DeadLetterHeaders.ORIGINAL_VALUE_SHA256);

        private final String bytesHeader;
        private final String digestHeader;

        Part(String bytesHeader, String digestHeader) {
            this.bytesHeader = bytesHeader;
            this.digestHeader = digestHeader;
        }

        byte[] of(ProducerRecord<byte[], byte[]> record) {
            return this == KEY ? record.key() : record.value();
        }

        ProducerRecord<byte[], byte[]> with(ProducerRecord<byte[], byte[]> record, byte[] bytes, RecordHeaders headers) {
            return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(),
                    this == KEY ? bytes : record.key(), this == VALUE ? bytes : record.value(), headers);
        }
    }

    private static ProducerRecord<byte[], byte[]> cutValue(ProducerRecord<byte[], byte[]> record, int limit) {
        return cut(record, limit, Part.VALUE);
    }

    private static ProducerRecord<byte[], byte[]> cutKey(ProducerRecord<byte[], byte[]> record, int limit) {
        return cut(record, limit, Part.KEY);
    }

    /**
     * The part cut to its start, so that the record fits; the original's size and digest are
     * added, unless the record is itself a cut copy, whose headers already describe its original.
     */
    private static ProducerRecord<byte[], byte[]> cut(ProducerRecord<byte[], byte[]> record, int limit, Part part) {
        byte[] bytes = part.of(record);
        int excess = size(record) - limit;
        if (excess <= 0 || bytes == null || bytes.length == 0) {
            return record;
        }
        RecordHeaders headers = copy(record.headers());
        int added = 0;
        if (headers.lastHeader(part.digestHeader) == null) {
            added = add(headers, part.bytesHeader, Integer.toString(bytes.length))
                    + add(headers, part.digestHeader, HexFormat.of().formatHex(Sha256.of(bytes)));
        }
        return part.with(record, Arrays.copyOf(bytes, Math.max(0, bytes.length - excess - added)), headers);
    }

    /** Adds an ASCII header, returning the bytes it takes. */
    private static int add(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.US_ASCII));
        return headerSize(headers.lastHeader(name));
    }

    /** Without the headers not {@code kept}, naming them in {@link DeadLetterHeaders#DROPPED_HEADERS}. */
    private static ProducerRecord<byte[], byte[]> withoutHeaders(ProducerRecord<byte[], byte[]> record,
            Set<String> kept) {
        RecordHeaders headers = new RecordHeaders();
        List<String> dropped = new ArrayList<>();
        long droppedBytes = 0;
        for (Header header : record.headers()) {
            if (kept.contains(header.key()) || DeadLetterHeaders.CUT.contains(header.key())) {
                headers.add(header);
            } else {
                dropped.add(header.key());
                droppedBytes += headerSize(header);
            }
        }
        if (dropped.isEmpty()) {
            return record;
        }
        String names = String.join(", ", dropped);
        headers.add(DeadLetterHeaders.DROPPED_HEADERS, (dropped.size() + " headers, " + droppedBytes + " bytes: "
                + (names.length() > MAX_NAMES ? names.substring(0, MAX_NAMES) + "…" : names))
                .getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(), record.key(), record.value(),
                headers);
    }

    private static RecordHeaders copy(Iterable<Header> headers) {
        RecordHeaders copy = new RecordHeaders();
        headers.forEach(copy::add);
        return copy;
    }

    private static int headerSize(Header header) {
        return HEADER_OVERHEAD + header.key().getBytes(StandardCharsets.UTF_8).length + length(header.value());
    }

    private static int length(byte[] bytes) {
        return bytes == null ? 0 : bytes.length;
    }
}
