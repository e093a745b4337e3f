package dev.lockstep.engine;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The queue's rules for one record, at its log time {@code now}: waits that ended leave their
 * queues first; the record's own command comes next (an acquire that waits joins its resource's
 * queue, a cancellation takes its acquire out of it, a newcomer never passes a waiter); then a
 * resource whose lease ended or was released at this record goes to its first waiter. Each waiter
 * decided gets its one reply here, published with the record's own.
 *
 * <p>A grant to a waiter is made by this record, so its fencing token is this record's (as any
 * grant's is the record's that made it), and its lease starts at this record's log time.
 */
final class Queueing {

    private final Inbound record;
    private final Instant now;
    private final PartitionState state;
    private final EventWriter events;
    private final EngineSettings settings;
    // Most records decide no waiter: nothing is built for them.
    private List<Outbound.ReplyRecord> replies = List.of();
    private final Set<String> freed = new LinkedHashSet<>();

    Queueing(Inbound record, Instant now, PartitionState state, EventWriter events, EngineSettings settings) {
        this.record = record;
        this.now = now;
        this.state = state;
        this.events = events;
        this.settings = settings;
    }

    /** The waiters decided by this record, their replies in order. */
    List<Outbound.ReplyRecord> replies() {
        return replies;
    }

    /**
     * The waits that ended by now leave their queues and are answered, before the record's own
     * command: a waiter is never granted after its wait ended, and the record, were it a retry of
     * that very acquire, finds it answered (not a new acquire to queue again).
     */
    void endWaits() {
        for (Waiter waiter : state.queues().endingUntil(now)) {
            events.waiting(LeaseEvent.Kind.WAIT_EXPIRED, waiter, waiter.deadline());
            answer(waiter, new Verdict.NotAcquired(remaining(waiter.resource()), Optional.of(WaitEnd.WAIT_EXPIRED)));
        }
    }

    /** The resource's lease ended, or was released, at this record. */
    void freed(String resource) {
        freed.add(resource);
    }

    /**
     * The first waiter of a resource nobody holds: it is about to be granted the resource, at this
     * record, so a newcomer does not get it first.
     */
    Optional<Waiter> nextInLine(String resource) {
        return state.holders(resource).liveAt(now).isEmpty() ? state.queues().first(resource) : Optional.empty();
    }

    /** Each resource freed at this record to its first waiter. */
    void handOvers() {
        freed.forEach(this::handOver);
    }

    /** Whether the acquire, refused because another owner holds its resource, joined the queue (not when it is full). */
    boolean join(Command.Acquire acquire, Triaged.Apply apply) {
        if (state.queues().length(acquire.resource()) >= Limits.MAX_WAITERS) {
            return false;
        }
        Waiter waiter = Waiter.of(acquire, apply, record.offset(), now);
        state.queues().join(waiter);
        events.waiting(LeaseEvent.Kind.QUEUED, waiter, now);
        return true;
    }

    /** A cancellation of an acquire still waiting: it leaves the queue, answered {@code not_acquired}. */
    void cancel(Waiter waiter) {
        state.queues().leave(waiter);
        events.waiting(LeaseEvent.Kind.CANCELLED, waiter, now);
        answer(waiter, new Verdict.NotAcquired(remaining(waiter.resource()), Optional.of(WaitEnd.CANCELLED)));
    }

    /** The resource to its first waiter, if it has one and nobody holds it. */
    private void handOver(String resource) {
        Holders holders = state.holders(resource);
        if (!holders.liveAt(now).isEmpty()) {
            return;
        }
        Optional<Waiter> first = state.queues().first(resource);
        if (first.isEmpty()) {
            return;
        }
        Waiter waiter = first.get();
        state.queues().leave(waiter);
        Verdict verdict = Arbiter.decide(waiter.acquire(), holders, now, state.position().tokenAt(record.offset()))
                .verdict();
        Lease granted = ((Verdict.Acquired) verdict).lease();
        state.put(granted);
        events.granted(grantKind(holders.atPermit(granted.permit()), granted, now, settings), granted, now, waiter);
        answer(waiter, verdict);
    }

    /** A new lease's event: a takeover when another owner's lease expired less than the request retention before. */
    static LeaseEvent.Kind grantKind(Optional<Lease> latest, Lease granted, Instant now, EngineSettings settings) {
        if (latest.isPresent() && !latest.get().isOwnedBy(granted.owner())
                && now.isBefore(latest.get().expiresAt().plus(settings.requestRetention()))) {
            return LeaseEvent.Kind.TAKEN_OVER;
        }
        return LeaseEvent.Kind.GRANTED;
    }

    private Duration remaining(String resource) {
        return state.holders(resource).leases().stream().map(lease -> lease.remainingAt(now))
                .max(Duration::compareTo).orElse(Duration.ZERO);
    }

    private void answer(Waiter waiter, Verdict verdict) {
        byte[] reply = ReplyEncoder.encode(new Reply.Decided(waiter.acquire(), verdict));
        if (replies.isEmpty()) {
            replies = new ArrayList<>(1);
        }
        DeferredReply deferred = new DeferredReply(record.offset(), replies.size(), waiter.requestId(), waiter.offset(), waiter.route(),
                waiter.correlationId(), StoredReply.of(reply), verdict.outcome());
        state.add(deferred);
        state.put(new RequestEntry(waiter.requestId(), waiter.fingerprint(), StoredReply.of(reply), waiter.offset(), now,
                record.offset()));
        replies.add(deferred.publishedFor(record));
    }
}
