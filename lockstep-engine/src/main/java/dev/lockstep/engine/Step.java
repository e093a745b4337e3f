package dev.lockstep.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * What one command record produced: the lease events it made or showed, in order, and its
 * answer (a reply or a dead letter).
 */
public record Step(List<Outbound.Event> events, Outbound answer) {

    public Step {
        events = List.copyOf(events);
    }

    /** Everything to publish, events first. */
    public List<Outbound> all() {
        List<Outbound> all = new ArrayList<>(events.size() + 1);
        all.addAll(events);
        all.add(answer);
        return all;
    }
}
