package dev.lockstep.engine;

import java.util.Optional;

/**
 * A lease event's ID, {@code topic-partition/sequence.index}: the command record's topic and
 * partition, its sequence (its place across the topic's incarnations, the token a lease it grants
 * gets) and the event's place among that record's events. The same record always yields the same
 * IDs, no two records share one, and on one partition they grow with the records that make them.
 */
public record EventId(String topic, int partition, long sequence, int index) implements Comparable<EventId> {

    /** Reads an ID as {@link #toString()} writes it; empty for anything else. */
    public static Optional<EventId> parse(String id) {
        int slash = id.lastIndexOf('/');
        int dot = id.lastIndexOf('.');
        int dash = slash < 0 ? -1 : id.lastIndexOf('-', slash);
        if (dash <= 0 || dot < slash) {
            return Optional.empty();
        }
        try {
            EventId parsed = new EventId(id.substring(0, dash), Integer.parseInt(id, dash + 1, slash, 10),
                    Long.parseLong(id, slash + 1, dot, 10), Integer.parseInt(id, dot + 1, id.length(), 10));
            // Only the canonical spelling: "+1" or "01" would name the same event twice.
            boolean canonical = parsed.partition() >= 0 && parsed.sequence() >= 0 && parsed.index() >= 0
                    && parsed.toString().equals(id);
            return canonical ? Optional.of(parsed) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Orders the IDs of one partition as its records made them. */
    @Override
    public int compareTo(EventId other) {
        int bySequence = Long.compare(sequence, other.sequence);
        return bySequence != 0 ? bySequence : Integer.compare(index, other.index);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "/" + sequence + "." + index;
    }
}
