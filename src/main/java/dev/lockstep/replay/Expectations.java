package dev.lockstep.replay;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.Step;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What the replayed records oblige the worker to have published: the replies each request ID may
 * have got on each reply topic, and every event by its ID.
 */
final class Expectations {

    /**
     * The replies the log gives a request ID (usually one), from its first record, and whether a
     * published one must exist (a record of it was applied and is in the window). Kept small: a
     * replay holds one per request ID of the log.
     */
    record ExpectedReply(String topic, int partition, long offset, List<byte[]> values, boolean required) {

        String source() {
            return topic + "-" + partition + "@" + offset;
        }

        boolean allows(byte[] published) {
            return values.stream().anyMatch(v -> Arrays.equals(v, published));
        }

        /** The replies, readable: what a divergence names as expected. */
        String described() {
            return String.join(" or ", values.stream().map(v -> new String(v, StandardCharsets.UTF_8)).toList());
        }

        ExpectedReply with(byte[] value, boolean alsoRequired) {
            boolean known = allows(value);
            if (known && (required || !alsoRequired)) {
                return this;
            }
            List<byte[]> more = values;
            if (!known) {
                more = new ArrayList<>(values);
                more.add(value);
            }
            return new ExpectedReply(topic, partition, offset, more, required || alsoRequired);
        }
    }

    private final TimeWindow window;
    private final Map<String, Map<String, ExpectedReply>> replies = new HashMap<>();
    private final Map<String, ExpectedEvent> events;
    private final int records;
    private String lastTopic = "";
    private Map<String, ExpectedReply> lastReplies = Map.of();

    /** An event the log makes, where, and whether it must have been published. */
    record ExpectedEvent(String value, String resource, String topic, int partition, long offset,
            Optional<String> requestId, boolean required) {

        String source() {
            return topic + "-" + partition + "@" + offset;
        }
    }

    /** @param records how many records will be added: the maps are sized once, not grown record by record */
    Expectations(TimeWindow window, long records) {
        this.window = window;
        this.records = (int) Math.min(records, 1 << 26);
        this.events = new HashMap<>(capacity(this.records));
    }

    private static int capacity(int entries) {
        return (int) Math.min(1L << 30, entries * 4L / 3 + 16);
    }

    /**
     * @param applied whether the worker has applied the record (it is below the partition's recorded
     *     next offset): only then must its reply and events have been published
     */
    void add(Inbound record, Step step, boolean applied) {
        boolean required = applied && record.logAppendTime().isPresent() && window.contains(record.logAppendTime().get());
        Outbound answer = step.answer();
        if (!step.events().isEmpty()) {
            Optional<String> requestId = answer instanceof Outbound.ReplyRecord reply
                    ? Optional.of(reply.requestId()) : Optional.empty();
            for (Outbound.Event event : step.events()) {
                events.put(event.entry().eventId(), new ExpectedEvent(event.entry().value(), event.entry().resource(),
                        record.topic(), record.partition(), record.offset(), requestId, required));
            }
        }
        if (answer instanceof Outbound.ReplyRecord reply) {
            // The encoder's bytes, kept as they are: one copy per request ID of the log is what a replay holds.
            byte[] value = reply.value();
            Map<String, ExpectedReply> topic = repliesTo(reply.route().topic());
            ExpectedReply known = topic.get(reply.requestId());
            topic.put(reply.requestId(), known == null
                    ? new ExpectedReply(record.topic(), record.partition(), record.offset(), List.of(value), required)
                    : known.with(value, required));
        }
    }

    /** The expected replies of one topic; almost every record's goes to the same one as the last. */
    private Map<String, ExpectedReply> repliesTo(String topic) {
        if (!topic.equals(lastTopic)) {
            lastTopic = topic;
            lastReplies = replies.computeIfAbsent(topic, t -> new HashMap<>(capacity(records)));
        }
        return lastReplies;
    }

    Map<String, Map<String, ExpectedReply>> replies() {
        return replies;
    }

    Optional<ExpectedReply> reply(String topic, String requestId) {
        return Optional.ofNullable(replies.getOrDefault(topic, Map.of()).get(requestId));
    }

    Map<String, ExpectedEvent> events() {
        return events;
    }

}
