package dev.lockstep.replay;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the replayed records oblige the worker to have published: the replies each request ID may
 * have got on each reply topic, and every event, each by its digest. The bytes are not kept: a
 * divergence's expected text is recovered by replaying again ({@link ExpectedTexts}), which only a
 * divergence costs.
 */
final class Expectations {

    /**
     * The replies the log gives one request ID on one topic (usually one), where its first record
     * is, and whether a published one must exist (a record of it was applied and is in the window).
     * One per request ID of the log, so it holds its first digest in fields of its own.
     */
    static final class ExpectedReply {

        private final int partition;
        private final long offset;
        private final Digest first;
        private List<Digest> others = List.of();
        private boolean required;
        private boolean answered;

        private ExpectedReply(int partition, long offset, Digest first, boolean required) {
            this.partition = partition;
            this.offset = offset;
            this.first = first;
            this.required = required;
        }

        boolean allows(Digest published) {
            return first.equals(published) || others.contains(published);
        }

        private void add(Digest value, boolean alsoRequired) {
            required |= alsoRequired;
            if (!allows(value)) {
                if (others.isEmpty()) {
                    others = new ArrayList<>(1);
                }
                others.add(value);
            }
        }

        int partition() {
            return partition;
        }

        long offset() {
            return offset;
        }

        boolean required() {
            return required;
        }

        boolean answered() {
            return answered;
        }

        void answered(boolean published) {
            answered |= published;
        }

        /** A marker in the log says the reply could not be delivered: only a later record requires it again. */
        private void undelivered() {
            required = false;
        }
    }

    private final TimeWindow window;
    private final String commandTopic;
    private final Map<String, Map<String, ExpectedReply>> replies = new HashMap<>();
    private final Map<Integer, ExpectedEvents> events = new HashMap<>();
    private final int records;
    private String lastTopic = "";
    private Map<String, ExpectedReply> lastReplies = Map.of();

    /** @param records how many records will be added: the maps are sized once, not grown record by record */
    Expectations(TimeWindow window, String commandTopic, long records) {
        this.window = window;
        this.commandTopic = commandTopic;
        this.records = (int) Math.min(records, 1 << 26);
    }

    /**
     * @param applied whether the worker has applied the record (it is below the partition's recorded
     *     next offset): only then must its reply and events have been published
     */
    void add(Inbound record, Step step, boolean applied) {
        boolean required = applied && record.logAppendTime().isPresent() && window.contains(record.logAppendTime().get());
        if (!step.events().isEmpty()) {
            ExpectedEvents partition = events.computeIfAbsent(record.partition(), p -> new ExpectedEvents());
            for (Outbound.Event event : step.events()) {
                String id = event.entry().eventId();
                partition.add(sequenceOf(id), event.entry().index(), record.offset(),
                        Digest.of(event.entry().value().getBytes(StandardCharsets.UTF_8)), required);
            }
        }
        // A waiter's reply is the deciding record's to publish: required with it.
        step.deferred().forEach(reply -> expect(record, reply, required));
        if (step.answer().isPresent() && step.answer().get() instanceof Outbound.ReplyRecord reply) {
            expect(record, reply, required);
        } else if (step.answer().isPresent() && step.answer().get() instanceof Outbound.DeadLetter dead && dead.reply().isPresent()) {
            Outbound.ReplyRecord undelivered = dead.reply().get();
            // Looked up, not added: a mark names a reply an earlier record was expected to give, if any.
            ExpectedReply known = replies.getOrDefault(undelivered.route().topic(), Map.of())
                    .get(undelivered.requestId());
            if (known != null) {
                known.undelivered();
            }
        }
    }

    private void expect(Inbound record, Outbound.ReplyRecord reply, boolean required) {
        Map<String, ExpectedReply> topic = repliesTo(reply.route().topic());
        Digest digest = Digest.of(reply.value());
        // Nearly every request ID is new: one look-up in a map of the whole log's, not two.
        ExpectedReply known = topic.putIfAbsent(reply.requestId(),
                new ExpectedReply(record.partition(), record.offset(), digest, required));
        if (known != null) {
            known.add(digest, required);
        }
    }

    /** The sequence in an event ID, {@code topic-partition/sequence.index}, read in place. */
    private static long sequenceOf(String eventId) {
        return Long.parseLong(eventId, eventId.lastIndexOf('/') + 1, eventId.lastIndexOf('.'), 10);
    }

    /** The expected replies of one topic; almost every record's goes to the same one as the last. */
    private Map<String, ExpectedReply> repliesTo(String topic) {
        if (!topic.equals(lastTopic)) {
            lastTopic = topic;
            lastReplies = replies.computeIfAbsent(topic, t -> new HashMap<>(capacity(records)));
        }
        return lastReplies;
    }

    private static int capacity(int entries) {
        return (int) Math.min(1L << 30, entries * 4L / 3 + 16);
    }

    String commandTopic() {
        return commandTopic;
    }

    /** {@code topic-partition@offset} of a command record. */
    String source(int partition, long offset) {
        return commandTopic + "-" + partition + "@" + offset;
    }

    Map<String, Map<String, ExpectedReply>> replies() {
        return replies;
    }

    Optional<ExpectedReply> reply(String topic, String requestId) {
        return Optional.ofNullable(replies.getOrDefault(topic, Map.of()).get(requestId));
    }

    /** The events of each command partition that made any. */
    Map<Integer, ExpectedEvents> events() {
        return events;
    }
}
