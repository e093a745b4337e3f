package dev.lockstep.audit;

import dev.lockstep.protocol.LeaseEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The holds of one resource, folded from its lease events in the order they were published
 * (duplicates, which a redone publication causes, counted once).
 *
 * <pre>{@code
 * Holds holds = Holds.of("nightly-report", events);
 * holds.at(Instant.parse("2026-12-03T02:00:00Z"));     // who held it then: zero or one hold
 * }</pre>
 */
public final class Holds {

    private final String resource;
    private final List<Hold> holds;

    private Holds(String resource, List<Hold> holds) {
        this.resource = resource;
        this.holds = List.copyOf(holds);
    }

    /** @param events the resource's events (others are ignored), in publication order */
    public static Holds of(String resource, List<LeaseEvent> events) {
        Set<String> seen = new HashSet<>();
        List<Hold> holds = new ArrayList<>();
        for (LeaseEvent event : events) {
            if (!event.resource().equals(resource) || !seen.add(event.eventId())) {
                continue;
            }
            int last = holds.size() - 1;
            Optional<Hold> open = last >= 0 && holds.get(last).end() == Hold.End.HELD
                    ? Optional.of(holds.get(last)) : Optional.empty();
            switch (event.kind()) {
                case GRANTED, TAKEN_OVER -> {
                    // A grant always follows the end of the hold before it; should an event be lost, the
                    // open hold ended at its expiry at the latest.
                    open.ifPresent(h -> holds.set(last, ended(h, h.expiresAt(), Hold.End.EXPIRED)));
                    holds.add(new Hold(event.owner(), event.fencingToken(), event.at(),
                            event.expiresAt().orElse(event.at()), Optional.empty(), Hold.End.HELD,
                            event.kind() == LeaseEvent.Kind.TAKEN_OVER, event.waited()));
                }
                case EXTENDED -> open.filter(h -> h.fencingToken() == event.fencingToken()).ifPresent(h -> holds.set(last,
                        new Hold(h.owner(), h.fencingToken(), h.acquiredAt(), event.expiresAt().orElse(h.expiresAt()),
                                Optional.empty(), Hold.End.HELD, h.takenOver(), h.waited())));
                case RELEASED -> open.filter(h -> h.fencingToken() == event.fencingToken())
                        .ifPresent(h -> holds.set(last, ended(h, event.at(), event.cancels().isPresent()
                                ? Hold.End.CANCELLED : Hold.End.RELEASED)));
                case EXPIRED -> open.filter(h -> h.fencingToken() == event.fencingToken())
                        .ifPresent(h -> holds.set(last, ended(h, event.at(), Hold.End.EXPIRED)));
            }
        }
        return new Holds(resource, holds);
    }

    private static Hold ended(Hold hold, Instant at, Hold.End end) {
        return new Hold(hold.owner(), hold.fencingToken(), hold.acquiredAt(), hold.expiresAt(), Optional.of(at), end,
                hold.takenOver(), hold.waited());
    }

    public String resource() {
        return resource;
    }

    /** Every hold, in the order they began. */
    public List<Hold> all() {
        return holds;
    }

    /** The hold covering {@code t}, if any: at most one, since holds of one resource never overlap. */
    public Optional<Hold> at(Instant t) {
        return holds.stream().filter(h -> h.covers(t)).findFirst();
    }

    /** The same resource with only {@code kept} of its holds (a window of them). */
    public Holds only(List<Hold> kept) {
        return new Holds(resource, kept);
    }

    /** The holds overlapping {@code [from, to)}. */
    public List<Hold> between(Instant from, Instant to) {
        return holds.stream().filter(h -> h.overlaps(from, to)).toList();
    }
}
