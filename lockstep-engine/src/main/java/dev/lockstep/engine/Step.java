package dev.lockstep.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one command record produced: the lease events it made or showed, in order, and its
 * answer (a reply or a dead letter; none for a tick).
 */
public record Step(List<Outbound.Event> events, Optional<Outbound> answer) {

    public Step {
        events = List.copyOf(events);
    }

    /** Everything to publish, events first. */
    public List<Outbound> all() {
        List<Outbound> all = new ArrayList<>(events.size() + 1);
        all.addAll(events);
        answer.ifPresent(all::add);
        return all;
    }
}
