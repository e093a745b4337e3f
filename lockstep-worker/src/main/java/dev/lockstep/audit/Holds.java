package dev.lockstep.audit;

import dev.lockstep.protocol.LeaseEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The holds of one resource, folded from its lease events in the order they were published
 * (duplicates, which a redone publication causes, counted once).
 *
 * <pre>{@code
 * Holds holds = Holds.of("nightly-report", events);
 * holds.allAt(Instant.parse("2026-12-03T02:00:00Z"));  // who held it then: a lock's one, a semaphore's several
 * }</pre>
 */
public final class Holds {

    private final String resource;
    private final List<Hold> holds;

    private Holds(String resource, List<Hold> holds) {
        this.resource = resource;
        this.holds = List.copyOf(holds);
    }

    /**
     * @param events the resource's events (others are ignored), in publication order. A lock has
     *     one open hold at a time; a shared resource one per permit, each followed by its token
     *     and permit (holders granted by one record share a token).
     */
    public static Holds of(String resource, List<LeaseEvent> events) {
        Set<String> seen = new HashSet<>();
        List<Hold> holds = new ArrayList<>();
        // The open holds, by permit: where in holds each is.
        Map<Integer, Integer> open = new HashMap<>();
        for (LeaseEvent event : events) {
            if (!event.resource().equals(resource) || !seen.add(event.eventId()) || event.kind().isWait()) {
                continue;
            }
            Integer at = open.get(event.permit());
            Optional<Hold> held = at != null && holds.get(at).fencingToken() == event.fencingToken()
                    ? Optional.of(holds.get(at)) : Optional.empty();
            switch (event.kind()) {
                case GRANTED, TAKEN_OVER -> {
                    // A grant always follows the end of the holds in its way; should an event be lost,
                    // they ended at their expiry at the latest.
                    List<Integer> inTheWay = event.share().exclusive() ? List.copyOf(open.values())
                            : open.entrySet().stream().filter(e -> e.getKey() == event.permit()
                                    || holds.get(e.getValue()).exclusive()).map(Map.Entry::getValue).toList();
                    inTheWay.forEach(i -> holds.set(i, ended(holds.get(i), holds.get(i).expiresAt(), Hold.End.EXPIRED)));
                    open.values().removeAll(inTheWay);
                    open.put(event.permit(), holds.size());
                    holds.add(new Hold(event.owner(), event.fencingToken(), event.at(),
                            event.expiresAt().orElse(event.at()), Optional.empty(), Hold.End.HELD,
                            event.kind() == LeaseEvent.Kind.TAKEN_OVER, event.waited(), event.permit(),
                            event.share().exclusive(), event.value()));
                }
                case EXTENDED -> held.ifPresent(h -> holds.set(at, new Hold(h.owner(), h.fencingToken(), h.acquiredAt(),
                        event.expiresAt().orElse(h.expiresAt()), Optional.empty(), Hold.End.HELD, h.takenOver(),
                        h.waited(), h.permit(), h.exclusive(), event.value())));
                case RELEASED -> held.ifPresent(h -> {
                    holds.set(at, ended(h, event.at(), event.cancels().isPresent() ? Hold.End.CANCELLED
                            : Hold.End.RELEASED));
                    open.remove(event.permit());
                });
                case EXPIRED -> held.ifPresent(h -> {
                    holds.set(at, ended(h, event.at(), Hold.End.EXPIRED));
                    open.remove(event.permit());
                });
                default -> {
                }
            }
        }
        return new Holds(resource, holds);
    }

    private static Hold ended(Hold hold, Instant at, Hold.End end) {
        return new Hold(hold.owner(), hold.fencingToken(), hold.acquiredAt(), hold.expiresAt(), Optional.of(at), end,
                hold.takenOver(), hold.waited(), hold.permit(), hold.exclusive(), hold.value());
    }

    public String resource() {
        return resource;
    }

    /** Every hold, in the order they began. */
    public List<Hold> all() {
        return holds;
    }

    /** The hold covering {@code t}, if any: a lock's one; of a shared resource's, the first. */
    public Optional<Hold> at(Instant t) {
        return holds.stream().filter(h -> h.covers(t)).findFirst();
    }

    /** Every hold covering {@code t}: a lock's one, or a shared resource's holders then. */
    public List<Hold> allAt(Instant t) {
        return holds.stream().filter(h -> h.covers(t)).toList();
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
