package dev.lockstep.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What one command record produced: the lease events it made or showed, in order; the replies of
 * the waiting acquires it decided; its own answer (a reply or a dead letter; none for a tick, a
 * hand-over, or an acquire that joined a queue); the hand-overs to append for the waiters that
 * are due after it; and, for a seal, the records that carry its leaving resources' state.
 */
public record Step(List<Outbound.Event> events, List<Outbound.ReplyRecord> deferred, Optional<Outbound> answer,
        List<Outbound.HandOver> handOvers, List<Outbound.Transfer> transfers) {

    public Step {
        events = List.copyOf(events);
        deferred = List.copyOf(deferred);
        handOvers = List.copyOf(handOvers);
        transfers = List.copyOf(transfers);
    }

    public Step(List<Outbound.Event> events, List<Outbound.ReplyRecord> deferred, Optional<Outbound> answer,
            List<Outbound.HandOver> handOvers) {
        this(events, deferred, answer, handOvers, List.of());
    }

    public Step(List<Outbound.Event> events, List<Outbound.ReplyRecord> deferred, Optional<Outbound> answer) {
        this(events, deferred, answer, List.of());
    }

    public Step(List<Outbound.Event> events, Optional<Outbound> answer) {
        this(events, List.of(), answer);
    }

    /** Everything to publish: events, then the waiters' replies, then the record's own answer, then hand-overs, then a growth's transfers. */
    public List<Outbound> all() {
        List<Outbound> all = new ArrayList<>(events.size() + deferred.size() + 1 + handOvers.size() + transfers.size());
        all.addAll(events);
        all.addAll(deferred);
        answer.ifPresent(all::add);
        all.addAll(handOvers);
        all.addAll(transfers);
        return all;
    }
}
