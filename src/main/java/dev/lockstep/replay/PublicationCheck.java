package dev.lockstep.replay;

import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Compares what was published with what the log obliges: replies by request ID on each reply
 * topic read, events by event ID. Duplicates with the same bytes are allowed (a publication redone).
 */
final class PublicationCheck {

    private final Expectations expected;
    private final List<Divergence> divergences = new ArrayList<>();
    private int repliesCompared;
    private int eventsCompared;

    PublicationCheck(Expectations expected) {
        this.expected = expected;
    }

    /**
     * @param complete whether every partition of the log was replayed from its start: only then is a
     *     reply for an unknown request ID forged (request IDs are per partition, replies do not say which)
     */
    void replies(String topic, List<Published> published, boolean complete) {
        Set<String> answered = new HashSet<>();
        for (Published reply : published) {
            Optional<Expectations.ExpectedReply> known = expected.reply(topic, reply.key());
            answered.add(reply.key());
            if (known.isEmpty()) {
                if (complete) {
                    divergences.add(new Divergence(Divergence.Kind.REPLY_FORGED, topic + "-" + reply.partition() + "@"
                            + reply.offset(), Optional.of(reply.key()), "no reply: no command record carries this request ID",
                            reply.text()));
                }
                continue;
            }
            repliesCompared++;
            if (!known.get().allows(reply.value())) {
                divergences.add(new Divergence(Divergence.Kind.REPLY_DIFFERS, known.get().source(),
                        Optional.of(reply.key()), known.get().described(), reply.text()));
            }
        }
        expected.replies().getOrDefault(topic, Map.of()).forEach((requestId, reply) -> {
            if (reply.required() && !answered.contains(requestId)) {
                divergences.add(new Divergence(Divergence.Kind.REPLY_MISSING, reply.source(), Optional.of(requestId),
                        reply.described(), "no reply on " + topic));
            }
        });
    }

    /**
     * @param replayedFrom the partitions replayed, each with the first offset replayed: events of other
     *     partitions, or made by records before that offset, are not judged
     */
    void events(List<Published> published, Map<Integer, Long> replayedFrom) {
        Set<String> seen = new HashSet<>();
        for (Published record : published) {
            Long from = replayedFrom.get(record.partition());
            if (from == null) {
                continue;
            }
            String id;
            try {
                LeaseEvent event = EventCodec.decode(record.value());
                if (from > 0 && sourceOffset(event) < from) {
                    continue;
                }
                id = event.eventId();
            } catch (IllegalArgumentException e) {
                divergences.add(new Divergence(Divergence.Kind.EVENT_FORGED, "events-" + record.partition() + "@"
                        + record.offset(), Optional.empty(), "a lease event", record.text() + " (" + e.getMessage() + ")"));
                continue;
            }
            seen.add(id);
            Expectations.ExpectedEvent known = expected.events().get(id);
            if (known == null) {
                divergences.add(new Divergence(Divergence.Kind.EVENT_FORGED, "events-" + record.partition() + "@"
                        + record.offset(), Optional.empty(), "no event: the log makes none with ID " + id, record.text()));
                continue;
            }
            eventsCompared++;
            if (!known.value().equals(record.text())) {
                divergences.add(new Divergence(Divergence.Kind.EVENT_DIFFERS, known.source(), known.requestId(),
                        known.value(), record.text()));
            } else if (record.partition() != known.partition() || !record.key().equals(known.resource())) {
                divergences.add(new Divergence(Divergence.Kind.EVENT_MISPLACED, known.source(), known.requestId(),
                        "partition " + known.partition() + ", key " + known.resource(),
                        "partition " + record.partition() + ", key " + record.key()));
            }
        }
        expected.events().forEach((id, known) -> {
            if (known.required() && !seen.contains(id)) {
                divergences.add(new Divergence(Divergence.Kind.EVENT_MISSING, known.source(), known.requestId(),
                        known.value(), "not published"));
            }
        });
    }

    /** The offset of the command record named by an event's {@code source}, {@code topic-partition@offset}. */
    private static long sourceOffset(LeaseEvent event) {
        String source = event.source();
        try {
            return Long.parseLong(source.substring(source.lastIndexOf('@') + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("its source is not topic-partition@offset: " + source, e);
        }
    }

    List<Divergence> divergences() {
        return divergences;
    }

    int repliesCompared() {
        return repliesCompared;
    }

    int eventsCompared() {
        return eventsCompared;
    }
}
