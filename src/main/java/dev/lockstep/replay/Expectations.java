package dev.lockstep.replay;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.Step;
import dev.lockstep.protocol.EventCodec;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the replayed records oblige the worker to have published: the replies each request ID may
 * have got on each reply topic, and every event by its ID.
 */
final class Expectations {

    /** A reply the log gives, and whether a published one must exist (the record was applied and is in the window). */
    record ExpectedReply(String source, Set<String> values, boolean required) {
    }

    private final TimeWindow window;
    private final Map<String, Map<String, ExpectedReply>> replies = new HashMap<>();
    private final Map<String, ExpectedEvent> events = new HashMap<>();

    /** An event the log makes, and whether it must have been published. */
    record ExpectedEvent(Outbound.Event event, boolean required) {
    }

    Expectations(TimeWindow window) {
        this.window = window;
    }

    /**
     * @param applied whether the worker has applied the record (it is below the partition's recorded
     *     next offset): only then must its reply and events have been published
     */
    void add(Inbound record, Step step, boolean applied) {
        boolean required = applied && record.logAppendTime().map(window::contains).orElse(false);
        step.events().forEach(event -> events.put(EventCodec.decode(event.value()).eventId(),
                new ExpectedEvent(event, required)));
        if (step.answer() instanceof Outbound.ReplyRecord reply) {
            String value = new String(reply.value(), StandardCharsets.UTF_8);
            replies.computeIfAbsent(reply.route().topic(), t -> new HashMap<>()).merge(reply.requestId(),
                    new ExpectedReply(record.position(), new LinkedHashSet<>(Set.of(value)), required),
                    (known, more) -> {
                        known.values().add(value);
                        return new ExpectedReply(known.source(), known.values(), known.required() || required);
                    });
        }
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
