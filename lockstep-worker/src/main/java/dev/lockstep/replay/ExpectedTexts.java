package dev.lockstep.replay;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.Step;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The expected texts a replay's divergences name, recovered by running the same records through the
 * engine again: the first run keeps digests only ({@link Expectations}). Only the replies and events
 * asked for are kept.
 */
final class ExpectedTexts {

    /** What a divergence needs the text of. */
    sealed interface Wanted {
    }

    /** Every reply the log gives a request ID on a topic. */
    record Replies(String topic, String requestId) implements Wanted {
    }

    /** The event with this ID, and the request ID of the record that made it. */
    record Event(String eventId) implements Wanted {
    }

    private final Set<Replies> wantedReplies = new HashSet<>();
    private final Set<String> wantedEvents = new HashSet<>();
    private final Map<Replies, Set<String>> replies = new HashMap<>();
    private final Map<String, String> events = new HashMap<>();
    private final Map<String, Optional<String>> eventRequests = new HashMap<>();

    void want(Wanted wanted) {
        if (wanted instanceof Replies r) {
            wantedReplies.add(r);
        } else if (wanted instanceof Event e) {
            wantedEvents.add(e.eventId());
        }
    }

    boolean isEmpty() {
        return wantedReplies.isEmpty() && wantedEvents.isEmpty();
    }

    /** What one replayed record yielded: keeps what is wanted of it. */
    void add(Inbound record, Step step) {
        Optional<String> requestId = Optional.empty();
        if (step.answer().isPresent() && step.answer().get() instanceof Outbound.ReplyRecord reply) {
            requestId = Optional.of(reply.requestId());
            Replies key = new Replies(reply.route().topic(), reply.requestId());
            if (wantedReplies.contains(key)) {
                replies.computeIfAbsent(key, k -> new LinkedHashSet<>())
                        .add(new String(reply.value(), StandardCharsets.UTF_8));
            }
        }
        for (Outbound.ReplyRecord reply : step.deferred()) {
            Replies key = new Replies(reply.route().topic(), reply.requestId());
            if (wantedReplies.contains(key)) {
                replies.computeIfAbsent(key, k -> new LinkedHashSet<>())
                        .add(new String(reply.value(), StandardCharsets.UTF_8));
            }
        }
        for (Outbound.Event event : step.events()) {
            if (wantedEvents.contains(event.entry().eventId())) {
                events.put(event.entry().eventId(), event.entry().value());
                eventRequests.put(event.entry().eventId(), requestId);
            }
        }
    }

    /** The text a divergence names as expected. */
    String text(Wanted wanted) {
        if (wanted instanceof Replies r) {
            return String.join(" or ", new ArrayList<>(replies.getOrDefault(r, Set.of())));
        }
        return events.getOrDefault(((Event) wanted).eventId(), "");
    }

    /** The request ID of the record a wanted event or reply belongs to. */
    Optional<String> requestId(Wanted wanted) {
        if (wanted instanceof Replies r) {
            return Optional.of(r.requestId());
        }
        return eventRequests.getOrDefault(((Event) wanted).eventId(), Optional.empty());
    }

    /** A divergence found by comparing digests, once its expected text is known. */
    record Finding(Divergence.Kind kind, String source, Optional<Wanted> wanted, Optional<String> requestId,
            String expected, String found) {

        static Finding of(Divergence divergence) {
            return new Finding(divergence.kind(), divergence.source(), Optional.empty(), divergence.requestId(),
                    divergence.expected(), divergence.found());
        }

        static Finding wanting(Divergence.Kind kind, String source, Wanted wanted, String found) {
            return new Finding(kind, source, Optional.of(wanted), Optional.empty(), "", found);
        }

        Divergence resolve(ExpectedTexts texts) {
            return wanted.map(w -> new Divergence(kind, source, texts.requestId(w), texts.text(w), found))
                    .orElseGet(() -> new Divergence(kind, source, requestId, expected, found));
        }
    }

    List<Divergence> resolve(List<Finding> findings) {
        return findings.stream().map(f -> f.resolve(this)).toList();
    }
}
