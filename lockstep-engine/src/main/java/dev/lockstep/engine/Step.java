package dev.lockstep.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one command record produced: the lease events it made or showed, in order; the replies of
 * the waiting acquires it decided; and its own answer (a reply or a dead letter; none for a tick,
 * or for an acquire that joined a queue).
 */
public record Step(List<Outbound.Event> events, List<Outbound.ReplyRecord> deferred, Optional<Outbound> answer) {

    public Step {
        events = List.copyOf(events);
        deferred = List.copyOf(deferred);
    }

    public Step(List<Outbound.Event> events, Optional<Outbound> answer) {
        this(events, List.of(), answer);
    }

    /** Everything to publish: events, then the waiters' replies, then the record's own answer. */
    public List<Outbound> all() {
        List<Outbound> all = new ArrayList<>(events.size() + deferred.size() + 1);
        all.addAll(events);
        all.addAll(deferred);
        answer.ifPresent(all::add);
        return all;
    }
}
