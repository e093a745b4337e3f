package dev.lockstep.client;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.LeaseEvent;
import java.util.Optional;

/**
 * Who leads a group as an observer sees it: from a status, then from the group's events on the
 * events topic, in their order (docs/protocol.md, "Leader election"). The term only grows, so an
 * event of an earlier term (a follower that read a status first, then events it already knew) is
 * ignored; two views are equal when they name the same leader, term and value.
 *
 * @param leader the leader's owner; empty while the group is vacant
 * @param term the leading lease's fencing token, or the last one known; 0 when none is
 */
public record Leader(String group, Optional<String> leader, long term, Optional<String> value) {

    /** A group with no leader known. */
    public static Leader vacant(String group) {
        return new Leader(group, Optional.empty(), 0, Optional.empty());
    }

    /** The group's leader, as a status of its resource tells ({@code not_found}: vacant). */
    public static Leader of(String group, Verdict status) {
        if (status instanceof Verdict.Locked locked && locked.lease().share().exclusive()) {
            Lease lease = locked.lease();
            return new Leader(group, Optional.of(lease.owner()), lease.fencingToken(), lease.value());
        }
        return vacant(group);
    }

    public boolean isVacant() {
        return leader.isEmpty();
    }

    /**
     * The view after one of the group's events: a new exclusive lease of a later term leads; its
     * holder acquiring again may publish another value; {@code vacant} ends the term. The end of a
     * lease alone changes nothing: a {@code vacant} event, or the next leader's grant, follows it
     * in the same record.
     */
    public Leader after(LeaseEvent event) {
        if (!event.resource().equals(group) || !event.share().exclusive()) {
            return this;
        }
        if (event.kind().startsHold() && event.fencingToken() > term) {
            return new Leader(group, Optional.of(event.owner()), event.fencingToken(), event.value());
        }
        if (event.kind() == LeaseEvent.Kind.EXTENDED && event.fencingToken() == term && leader.isPresent()) {
            return new Leader(group, leader, term, event.value());
        }
        if (event.kind() == LeaseEvent.Kind.VACANT && event.fencingToken() >= term) {
            return new Leader(group, Optional.empty(), event.fencingToken(), Optional.empty());
        }
        return this;
    }
}
