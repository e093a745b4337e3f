package dev.lockstep.engine;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Decision;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Now;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The queue's rules for one record, at its log time {@code now}: waits that ended leave their
 * queues first; the record's own command comes next (an acquire that waits joins its resource's
 * queue, a cancellation takes its acquire out of it, a newcomer never passes a waiter); then a
 * resource whose lease ended or was released at this record, or that the record names, goes to its
 * first waiter. Each waiter decided gets its one reply here, published with the record's own.
 *
 * <p>A grant to a waiter is made by this record, so its fencing token is this record's (as any
 * grant's is the record's that made it), and its lease starts at this record's log time. So a
 * record grants a resource to one waiter at most, and one due after it waits for a hand-over.
 */
final class Queueing {

    private final Inbound record;
    private final Now now;
    private final PartitionState state;
    private final EventWriter events;
    private final EngineSettings settings;
    // Most records decide no waiter: nothing is built for them.
    private List<Outbound.ReplyRecord> replies = List.of();
    private List<Outbound.HandOver> due = List.of();
    // The resources whose first waiter this record may grant: freed at it, or named by it.
    private final Set<String> freed = new LinkedHashSet<>();
    // The resources this record is a hand-over of, not its run's last: they ask for no run.
    private Set<String> runInFlight = Set.of();
    // The announced leases (with a value) that ended at this record, the last one per resource.
    private Map<String, Lease> announced = Map.of();
    private final boolean quarantined;

    /** @param quarantined whether the partition is quarantined at this record: no waiter is granted then */
    Queueing(Inbound record, Now now, PartitionState state, EventWriter events, EngineSettings settings,
            boolean quarantined) {
        this.record = record;
        this.now = now;
        this.state = state;
        this.events = events;
        this.settings = settings;
        this.quarantined = quarantined;
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
        for (Waiter waiter : state.queues().endingUntil(now.passed())) {
            events.waiting(LeaseEvent.Kind.WAIT_EXPIRED, waiter, waiter.deadline());
            answer(waiter, new Verdict.NotAcquired(remaining(waiter.resource()), Optional.of(WaitEnd.WAIT_EXPIRED)));
            // The waiter may have kept the next ones from room the holders leave.
            freed.add(waiter.resource());
        }
    }

    /**
     * The partition's quarantine ended at this record: every queue goes to its first waiter, as
     * if its resource were freed (no waiter was granted while it lasted).
     */
    void quarantineEnded() {
        freed.addAll(state.queues().resources());
    }

    /**
     * The record's command, or hand-over, names this resource: a waiter due there (one a lost
     * hand-over left waiting) is granted at it, as at the hand-over.
     */
    void named(String resource) {
        freed.add(resource);
    }

    /**
     * The record is a hand-over of the resource; one of a run short of its last leaves the next
     * run to the last (the waiters it would count are those the run's others are on their way to).
     */
    void handedOver(String resource, boolean last) {
        freed.add(resource);
        if (!last) {
            if (runInFlight.isEmpty()) {
                runInFlight = new LinkedHashSet<>();
            }
            runInFlight.add(resource);
        }
    }

    /** The hand-overs to append: a run for each resource with room for its next waiters after this record. */
    List<Outbound.HandOver> due() {
        return due;
    }

    /** The lease ended, or was released, at this record. */
    void freed(Lease ended) {
        freed.add(ended.resource());
        if (ended.value().isPresent()) {
            if (announced.isEmpty()) {
                announced = new LinkedHashMap<>();
            }
            announced.put(ended.resource(), ended);
        }
    }

    /**
     * A shared acquire names another limit than the resource's live shared holders or its shared
     * waiters have: the limit is the resource's while it has holders or waiters, whoever they are.
     */
    Optional<FieldError> limitMismatch(Command.Acquire acquire) {
        if (acquire.share().exclusive()) {
            return Optional.empty();
        }
        return Stream.concat(state.holders(acquire.resource()).liveAt(now.passed()).stream().map(Lease::share),
                        state.queues().queue(acquire.resource()).stream().map(Waiter::share))
                .filter(share -> !share.exclusive() && share.limit() != acquire.share().limit())
                .findFirst().map(share -> new FieldError("limit", "the resource admits " + share.limit()
                        + " shared holders while it has holders or waiters; this acquire names "
                        + acquire.share().limit()));
    }

    /** How long until the resource's leases have all ended. */
    Duration remaining(String resource) {
        return state.holders(resource).leases().stream().map(lease -> lease.remainingAt(now.passed()))
                .max(Duration::compareTo).orElse(Duration.ZERO);
    }

    /**
     * Each resource freed at this record, or named by it, to its first waiter if it has room for
     * it (one decided on this partition: a growth may have carried it off, or not yet here); then
     * each resource an announced lease left that nobody holds now is said to be vacant.
     */
    void handOvers(Predicate<String> decidedHere) {
        if (!quarantined) {
            freed.stream().filter(decidedHere).forEach(this::handOver);
        }
        announced.values().forEach(ended -> {
            if (decidedHere.test(ended.resource()) && state.holders(ended.resource()).liveAt(now.passed()).isEmpty()) {
                events.vacant(ended);
            }
        });
    }

    /** Whether the acquire, refused because another owner holds its resource, joined the queue (not when it is full). */
    boolean join(Command.Acquire acquire, Triaged.Apply apply) {
        if (state.queues().length(acquire.resource()) >= Limits.MAX_WAITERS) {
            return false;
        }
        Waiter waiter = Waiter.of(acquire, apply, record.offset(), now.from());
        state.queues().join(waiter);
        events.waiting(LeaseEvent.Kind.QUEUED, waiter, now.from());
        return true;
    }

    /** A cancellation of an acquire still waiting: it leaves the queue, answered {@code not_acquired}. */
    void cancel(Waiter waiter) {
        state.queues().leave(waiter);
        events.waiting(LeaseEvent.Kind.CANCELLED, waiter, now.passed());
        answer(waiter, new Verdict.NotAcquired(remaining(waiter.resource()), Optional.of(WaitEnd.CANCELLED)));
    }

    /**
     * The resource's first waiter decided at this record, when the rules decide it now: granted a
     * new lease (one grant per resource and record, since a grant's token is its record's), or, when
     * its owner holds the resource by then (its other acquire was granted first), answered as that
     * owner's acquire is: extended, the same token. One decision per resource and record, so that
     * the record that decided a request, and its token, say which lease it was granted (a
     * cancellation releases that one). When the next waiters could be decided too (a semaphore's
     * permits freed together, readers after a writer), they are due: the first is marked so, and a
     * run of hand-over records is to be appended, one per waiter, each deciding the first in line;
     * the run's last asks for another run while more are due.
     */
    private void handOver(String resource) {
        Optional<Waiter> first = state.queues().first(resource);
        if (first.isEmpty()) {
            return;
        }
        Waiter waiter = first.get();
        Holders holders = state.holders(resource);
        if (holds(holders, waiter)) {
            holderTurn(waiter, holders);
        } else {
            Optional<Verdict.Acquired> grant = grantable(waiter, holders);
            if (grant.isEmpty()) {
                return;
            }
            state.queues().leave(waiter);
            Lease granted = grant.get().lease();
            state.put(granted);
            events.granted(grantKind(holders.atPermit(granted.permit()), granted, now.passed(), settings), granted, now.from(),
                    waiter);
            // The reply says how long it waited in log time, so its client dates the lease from its own send.
            answer(waiter, new Verdict.Acquired(granted, Optional.of(waited(waiter))));
        }
        int run = dueAfter(resource);
        if (run == 0) {
            return;
        }
        state.queues().markDue(state.queues().first(resource).orElseThrow(), record.offset());
        if (!runInFlight.contains(resource)) {
            if (due.isEmpty()) {
                due = new ArrayList<>(run);
            }
            for (int index = 1; index <= run; index++) {
                due.add(new Outbound.HandOver(record, resource, index, run));
            }
        }
    }

    /**
     * The turn of a waiter whose owner holds the resource: it is answered as that owner's acquire
     * is, its lease extended (or {@code invalid}: another share than it holds). It takes no permit.
     */
    private void holderTurn(Waiter waiter, Holders holders) {
        state.queues().leave(waiter);
        Decision decision = Arbiter.decide(waiter.acquire(), holders, now, state.position().tokenAt(record.offset()));
        decision.write().ifPresent(extended -> {
            state.put(extended);
            events.granted(LeaseEvent.Kind.EXTENDED, extended, now.from(), waiter);
        });
        answer(waiter, decision.verdict() instanceof Verdict.Acquired extended
                ? new Verdict.Acquired(extended.lease(), Optional.of(waited(waiter)))
                : decision.verdict());
    }

    /**
     * The log time the waiter is known to have waited: from the latest its acquire may have been
     * to the time known to have passed now, never more. Its client dates the grant by it, so it
     * must not overstate the wait (docs/protocol.md, "Time").
     */
    private Duration waited(Waiter waiter) {
        Duration waited = Duration.between(waiter.queuedAt(), now.passed());
        return waited.isNegative() ? Duration.ZERO : waited;
    }

    private boolean holds(Holders holders, Waiter waiter) {
        return holders.liveAt(now.passed()).stream().anyMatch(lease -> lease.isOwnedBy(waiter.owner()));
    }

    /**
     * How many of the resource's waiters, in order, the rules would decide one after another now:
     * grants, each taking its permit, and the turns of waiters whose owners hold by then.
     */
    private int dueAfter(String resource) {
        Holders holders = state.holders(resource);
        int count = 0;
        for (Waiter waiter : state.queues().queue(resource)) {
            if (holds(holders, waiter)) {
                count++;
                continue;
            }
            Optional<Verdict.Acquired> grant = grantable(waiter, holders);
            if (grant.isEmpty()) {
                break;
            }
            // The grant takes its permit: an ended lease there makes way, as the store replaces it.
            Lease granted = grant.get().lease();
            List<Lease> after = new ArrayList<>(holders.leases());
            after.removeIf(lease -> lease.permit() == granted.permit());
            after.add(granted);
            holders = new Holders(after);
            count++;
        }
        return count;
    }

    /**
     * The new lease the rules grant the waiter at this record beside {@code holders}, unless its
     * owner holds the resource already ({@link #holderTurn}) or a holder is in the way.
     */
    private Optional<Verdict.Acquired> grantable(Waiter waiter, Holders holders) {
        if (holds(holders, waiter)) {
            return Optional.empty();
        }
        return Arbiter.decide(waiter.acquire(), holders, now, state.position().tokenAt(record.offset())).verdict()
                instanceof Verdict.Acquired acquired ? Optional.of(acquired) : Optional.empty();
    }

    /** A new lease's event: a takeover when another owner's lease expired less than the request retention before. */
    static LeaseEvent.Kind grantKind(Optional<Lease> latest, Lease granted, Instant now, EngineSettings settings) {
        if (latest.isPresent() && !latest.get().isOwnedBy(granted.owner())
                && now.isBefore(latest.get().expiresAt().plus(settings.requestRetention()))) {
            return LeaseEvent.Kind.TAKEN_OVER;
        }
        return LeaseEvent.Kind.GRANTED;
    }


    private void answer(Waiter waiter, Verdict verdict) {
        byte[] reply = ReplyEncoder.encode(new Reply.Decided(waiter.acquire(), verdict));
        if (replies.isEmpty()) {
            replies = new ArrayList<>(1);
        }
        DeferredReply deferred = new DeferredReply(record.offset(), replies.size(), waiter.requestId(), waiter.offset(), waiter.route(),
                waiter.correlationId(), StoredReply.of(reply), verdict.outcome());
        state.add(deferred);
        state.put(new RequestEntry(waiter.requestId(), waiter.fingerprint(), StoredReply.of(reply), waiter.offset(), now.passed(),
                record.offset()));
        replies.add(deferred.publishedFor(record));
    }
}
