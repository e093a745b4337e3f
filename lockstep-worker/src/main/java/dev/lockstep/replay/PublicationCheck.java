package dev.lockstep.replay;

import dev.lockstep.engine.EventId;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.replay.ExpectedTexts.Finding;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Compares what was published with what the log obliges, one published record at a time (nothing
 * published is held): replies by request ID on each reply topic read, events by event ID.
 * Duplicates with the same bytes are allowed (a publication redone).
 *
 * <pre>{@code
 * PublicationCheck check = new PublicationCheck(expected, complete, replayedFrom);
 * repliesOfTopic.forEach(r -> check.reply(topic, r));
 * check.endOfReplies(topic);
 * events.forEach(check::event);
 * check.endOfEvents();
 * check.findings();          // to resolve against the texts a second run recovers
 * }</pre>
 */
final class PublicationCheck {

    private final Expectations expected;
    private final boolean complete;
    private final Map<Integer, Long> replayedFrom;
    private final List<Finding> findings = new ArrayList<>();
    private int repliesCompared;
    private int eventsCompared;

    /**
     * @param complete whether every partition of the log was replayed from its start: only then is a
     *     reply for an unknown request ID forged (request IDs are per partition, replies do not say which)
     * @param replayedFrom the partitions replayed, each with the first offset replayed: events of other
     *     partitions, or made by records before that offset, are not judged
     */
    PublicationCheck(Expectations expected, boolean complete, Map<Integer, Long> replayedFrom) {
        this.expected = expected;
        this.complete = complete;
        this.replayedFrom = replayedFrom;
    }

    void reply(String topic, Published reply) {
        Optional<Expectations.ExpectedReply> known = expected.reply(topic, reply.key());
        if (known.isEmpty()) {
            if (complete) {
                findings.add(Finding.of(new Divergence(Divergence.Kind.REPLY_FORGED, topic + "-" + reply.partition() + "@"
                        + reply.offset(), Optional.of(reply.key()), "no reply: no command record carries this request ID",
                        reply.text())));
            }
            return;
        }
        repliesCompared++;
        known.get().answered(true);
        if (!known.get().allows(Digest.of(reply.value()))) {
            findings.add(Finding.wanting(Divergence.Kind.REPLY_DIFFERS, source(known.get()),
                    new ExpectedTexts.Replies(topic, reply.key()), reply.text()));
        }
    }

    /** Every reply of {@code topic} was read: the required ones never published are missing. */
    void endOfReplies(String topic) {
        expected.replies().getOrDefault(topic, Map.of()).forEach((requestId, reply) -> {
            if (reply.required() && !reply.answered()) {
                findings.add(Finding.wanting(Divergence.Kind.REPLY_MISSING, source(reply),
                        new ExpectedTexts.Replies(topic, requestId), "no reply on " + topic));
            }
        });
    }

    private String source(Expectations.ExpectedReply reply) {
        return expected.source(reply.partition(), reply.offset());
    }

    void event(Published record) {
        Long from = replayedFrom.get(record.partition());
        if (from == null) {
            return;
        }
        LeaseEvent event;
        try {
            event = EventCodec.decode(record.value());
            if (from > 0 && sourceOffset(event) < from) {
                return;
            }
        } catch (IllegalArgumentException e) {
            findings.add(Finding.of(new Divergence(Divergence.Kind.EVENT_FORGED, "events-" + record.partition() + "@"
                    + record.offset(), Optional.empty(), "a lease event", record.text() + " (" + e.getMessage() + ")")));
            return;
        }
        Optional<EventId> id = EventId.parse(event.eventId()).filter(i -> i.topic().equals(expected.commandTopic()));
        Optional<ExpectedEvents> ofPartition = id.map(i -> expected.events().get(i.partition()));
        int at = ofPartition.map(events -> events.find(id.get().sequence(), id.get().index())).orElse(-1);
        if (at < 0) {
            findings.add(Finding.of(new Divergence(Divergence.Kind.EVENT_FORGED, "events-" + record.partition() + "@"
                    + record.offset(), Optional.empty(), "no event: the log makes none with ID " + event.eventId(),
                    record.text())));
            return;
        }
        ExpectedEvents known = ofPartition.get();
        known.seen(at);
        eventsCompared++;
        String source = expected.source(id.get().partition(), known.offset(at));
        if (!known.matches(at, Digest.of(record.value()))) {
            findings.add(Finding.wanting(Divergence.Kind.EVENT_DIFFERS, source, new ExpectedTexts.Event(event.eventId()),
                    record.text()));
        } else if (record.partition() != id.get().partition() || !record.key().equals(event.resource())) {
            // The same bytes as expected: the event's own resource and request ID are the expected ones.
            findings.add(Finding.of(new Divergence(Divergence.Kind.EVENT_MISPLACED, source, event.requestId(),
                    "partition " + id.get().partition() + ", key " + event.resource(),
                    "partition " + record.partition() + ", key " + record.key())));
        }
    }

    /** Every event was read: the required ones never published are missing. */
    void endOfEvents() {
        expected.events().forEach((partition, events) -> events.missing().forEach(at -> {
            String eventId = new EventId(expected.commandTopic(), partition, events.sequence(at), events.index(at)).toString();
            findings.add(Finding.wanting(Divergence.Kind.EVENT_MISSING, expected.source(partition, events.offset(at)),
                    new ExpectedTexts.Event(eventId), "not published"));
        }));
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

    List<Finding> findings() {
        return findings;
    }

    int repliesCompared() {
        return repliesCompared;
    }

    int eventsCompared() {
        return eventsCompared;
    }
}
