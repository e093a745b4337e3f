package dev.lockstep.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A command record's headers as the engine reads them: in their order, copied when read from a
 * consumer record and when handed out, so nothing holding the record (Kafka's {@code Headers} are
 * mutable, and so are their byte arrays) can change what the engine decides by. Kafka allows a
 * header without a value; {@link #has} and {@link #lastValue} tell the two apart.
 */
public final class InboundHeaders {

    public static final InboundHeaders NONE = new InboundHeaders(List.of());

    private record Entry(String key, byte[] value) {
    }

    private final List<Entry> entries;

    private InboundHeaders(List<Entry> entries) {
        this.entries = entries;
    }

    public static InboundHeaders of(Iterable<Header> headers) {
        List<Entry> entries = new ArrayList<>();
        for (Header header : headers) {
            entries.add(new Entry(header.key(), header.value() == null ? null : header.value().clone()));
        }
        return entries.isEmpty() ? NONE : new InboundHeaders(List.copyOf(entries));
    }

    /** Whether a header named {@code key} is there, with a value or without. */
    public boolean has(String key) {
        return last(key).isPresent();
    }

    /** The value of the last header named {@code key}; empty when there is none, or it has no value. */
    public Optional<byte[]> lastValue(String key) {
        return last(key).map(Entry::value).map(byte[]::clone);
    }

    /** How many headers are named {@code key}. */
    public int count(String key) {
        return (int) entries.stream().filter(entry -> entry.key().equals(key)).count();
    }

    /** A copy in Kafka's form, for a record the worker writes with them (a dead letter, a mark). */
    public RecordHeaders toKafka() {
        RecordHeaders headers = new RecordHeaders();
        for (Entry entry : entries) {
            headers.add(entry.key(), entry.value() == null ? null : entry.value().clone());
        }
        return headers;
    }

    private Optional<Entry> last(String key) {
        for (int i = entries.size() - 1; i >= 0; i--) {
            if (entries.get(i).key().equals(key)) {
                return Optional.of(entries.get(i));
            }
        }
        return Optional.empty();
    }
}
