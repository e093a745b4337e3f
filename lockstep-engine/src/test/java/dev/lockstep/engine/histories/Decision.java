package dev.lockstep.engine.histories;

import static dev.lockstep.engine.histories.Observed.CANCELLATION;
import static dev.lockstep.engine.histories.Observed.FIFO;
import static dev.lockstep.engine.histories.Observed.ONE_REPLY;
import static dev.lockstep.engine.histories.Observed.QUARANTINE;
import static dev.lockstep.engine.histories.Observed.RULES;
import static dev.lockstep.engine.histories.Observed.VALIDATION;
import static dev.lockstep.engine.histories.Observed.sameButToken;
import static dev.lockstep.engine.histories.Observed.verdict;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Now;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.engine.Outbound;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A producer's command, decided as the replies before it and the lock rules say it must be, against
 * the record's own answer: a retry answered as before, a cancellation ending only its acquire's
 * grant or wait, an acquire that waits only behind others, and validation before any queue.
 */
final class Decision {

    private final Observed observed;
    private final Observed.Expected expected;
    private final Holdings holdings;
    private final long offset;
    private final Now now;
    private final boolean quarantined;

    Decision(Observed observed, Observed.Expected expected, long offset, Now now, boolean quarantined) {
        this.observed = observed;
        this.expected = expected;
        this.holdings = observed.holdings();
        this.offset = offset;
        this.now = now;
        this.quarantined = quarantined;
    }

    void decide(Command command) {
        Optional<Optional<byte[]>> retried = observed.retried(command);
        if (retried.isPresent()) {
            again(command, retried.get());
        } else if (command instanceof Command.Acquire acquire) {
            acquire(acquire);
        } else if (command instanceof Command.Release release && release.cancels().isPresent()) {
            cancel(release, release.cancels().get());
        } else {
            arbitrated(command);
        }
    }

    /** A request ID seen before: the same command gets its stored reply (none while it waits), another is invalid. */
    private void again(Command command, Optional<byte[]> stored) {
        if (stored.isPresent() && stored.get().length == 0) {
            Verdict verdict = answer("a reused request ID");
            Violation.check(verdict instanceof Verdict.Invalid, ONE_REPLY, command.requestId()
                    + " reused for another command, answered " + verdict);
        } else if (stored.isEmpty()) {
            Violation.check(expected.answer.isEmpty(), ONE_REPLY, "a retry of " + command.requestId()
                    + ", which waits, answered " + expected.answer.map(Object::toString).orElse("nothing"));
        } else {
            byte[] again = ownReply("a retry").value();
            Violation.check(Arrays.equals(again, stored.get()), ONE_REPLY, "a retry of " + command.requestId()
                    + " answered " + new String(again, StandardCharsets.UTF_8) + " after "
                    + new String(stored.get(), StandardCharsets.UTF_8));
        }
    }

    private void acquire(Command.Acquire acquire) {
        String resource = acquire.resource();
        Optional<String> invalid = holdings.invalid(acquire, now);
        if (quarantined && invalid.isEmpty()) {
            Verdict verdict = answer("an acquire during a quarantine");
            Violation.check(verdict instanceof Verdict.NotAcquired, QUARANTINE, acquire.requestId()
                    + " answered " + verdict + " during a quarantine");
            observed.decided(acquire, ownReply("").value(), Optional.empty());
            return;
        }
        if (invalid.isPresent()) {
            Violation.check(expected.answer.isPresent(), VALIDATION, acquire.requestId() + " joined the queue of "
                    + resource + ", which holds " + holdings.queue(resource).size() + ", where the rules refuse it: "
                    + invalid.get());
            Verdict verdict = answer("");
            Violation.check(verdict instanceof Verdict.Invalid || quarantined && verdict instanceof Verdict.NotAcquired,
                    VALIDATION, acquire.requestId() + " answered " + verdict + " where the rules refuse it: "
                            + invalid.get());
            observed.decided(acquire, ownReply("").value(), Optional.empty());
            return;
        }
        Optional<Lease> own = holdings.heldBy(resource, acquire.owner(), now.passed());
        boolean behind = own.isEmpty() && !holdings.queue(resource).isEmpty();
        Verdict rules = Arbiter.decide(acquire, holdings.live(resource, now.passed()), now, Long.MAX_VALUE).verdict();
        boolean refused = behind || rules instanceof Verdict.NotAcquired;
        if (refused && acquire.waits()) {
            Violation.check(expected.answer.isEmpty(), RULES, acquire.requestId() + " answered "
                    + expected.answer.map(a -> a instanceof Outbound.ReplyRecord r ? verdict(r).toString() : a.toString())
                    + " where it joins the queue of " + resource);
            Holdings.Waiting waiting = new Holdings.Waiting(offset, acquire, now.from(), now.from().plus(acquire.maxWait()));
            holdings.join(waiting);
            expected.waiter(LeaseEvent.Kind.QUEUED, waiting);
            observed.queued(acquire);
            return;
        }
        Verdict verdict = answer("an acquire");
        byte[] reply = ownReply("").value();
        if (refused) {
            Violation.check(verdict instanceof Verdict.NotAcquired, behind ? FIFO : RULES, acquire.requestId()
                    + " answered " + verdict + " where " + (behind ? "waiters come first: "
                            + holdings.queue(resource).stream().map(Holdings.Waiting::requestId).toList()
                            : "the rules say " + rules));
            observed.decided(acquire, reply, Optional.empty());
            return;
        }
        Lease granted = ((Verdict.Acquired) rules).lease();
        Violation.check(verdict instanceof Verdict.Acquired a && sameButToken(granted, a.lease())
                && (own.isEmpty() || a.lease().fencingToken() == own.get().fencingToken()), RULES,
                acquire.requestId() + " answered " + verdict + " where the rules grant " + granted);
        Lease lease = ((Verdict.Acquired) verdict).lease();
        if (own.isPresent()) {
            holdings.put(lease);
            expected.extended(lease);
            observed.decided(acquire, reply, Optional.empty());
        } else {
            holdings.grant(lease, now.passed());
            expected.granted(lease);
            observed.decided(acquire, reply, Optional.of(lease.fencingToken()));
        }
    }

    /**
     * A cancellation: a waiting acquire leaves its queue; otherwise only the new lease that very
     * acquire was granted is released, if it still holds.
     */
    private void cancel(Command.Release cancel, String acquireId) {
        Optional<Holdings.Waiting> waiting = holdings.waiting(acquireId);
        Verdict verdict = answer("a cancellation");
        if (waiting.isPresent()) {
            boolean own = waiting.get().owner().equals(cancel.owner())
                    && waiting.get().acquire().resource().equals(cancel.resource());
            Violation.check(verdict instanceof Verdict.NotFound && own || verdict instanceof Verdict.Forbidden && !own,
                    CANCELLATION, "the cancellation of waiting " + acquireId + " by " + cancel.owner() + " answered "
                            + verdict);
            if (own) {
                holdings.leave(waiting.get());
                expected.waiter(LeaseEvent.Kind.CANCELLED, waiting.get());
                Optional<Outbound.ReplyRecord> reply = expected.deferred(acquireId, WaitEnd.CANCELLED);
                Violation.check(reply.isPresent(), ONE_REPLY, "cancelled waiter " + acquireId + " unanswered");
                observed.decided(waiting.get().acquire(), reply.get().value(), Optional.empty());
            }
        } else {
            Optional<Lease> granted = observed.grantedBy(acquireId)
                    .flatMap(token -> holdings.withToken(cancel.resource(), token)).filter(l -> l.isLiveAt(now.passed()));
            Verdict rules = granted.isEmpty() ? new Verdict.NotFound() : Arbiter.decide(new Command.Release(
                    cancel.requestId(), cancel.resource(), cancel.owner(), OptionalLong.of(
                            granted.get().fencingToken())), holdings.live(cancel.resource(), now.passed()), now, 0).verdict();
            Violation.check(verdict.outcome() == rules.outcome(), CANCELLATION, "the cancellation of " + acquireId
                    + " by " + cancel.owner() + " answered " + verdict + " where " + (granted.isEmpty()
                            ? "that acquire was granted no lease that still holds" : "the rules say " + rules));
            if (verdict instanceof Verdict.Released) {
                holdings.end(granted.get());
                expected.ended(LeaseEvent.Kind.RELEASED, granted.get());
            }
        }
        observed.decided(cancel, ownReply("").value(), Optional.empty());
    }

    /** A renew, release or status: as the lock rules decide it over the holders. */
    private void arbitrated(Command command) {
        Verdict verdict = answer("a " + command.type().wireName());
        Verdict rules = quarantined && command instanceof Command.Renew ? new Verdict.NotFound()
                : Arbiter.decide(command, holdings.live(command.resource(), now.passed()), now, 0).verdict();
        Violation.check(verdict.outcome() == rules.outcome(), RULES, command.requestId() + " (" + command
                + ") answered " + verdict + " where the rules say " + rules);
        if (verdict instanceof Verdict.Renewed renewed) {
            Violation.check(renewed.lease().equals(((Verdict.Renewed) rules).lease()), RULES, "renewed "
                    + renewed.lease() + " where the rules renew " + ((Verdict.Renewed) rules).lease());
            holdings.put(renewed.lease());
            expected.extended(renewed.lease());
        } else if (verdict instanceof Verdict.Released) {
            Command.Release release = (Command.Release) command;
            Lease ended = holdings.heldBy(release.resource(), release.owner(), now.passed()).orElseThrow();
            holdings.end(ended);
            expected.ended(LeaseEvent.Kind.RELEASED, ended);
        } else if (verdict instanceof Verdict.Locked locked) {
            List<Lease> holders = holdings.live(command.resource(), now.passed()).leases();
            Command.Status status = (Command.Status) command;
            Violation.check(listed(locked.holders()).equals(listed(holders)) && locked.waiters() == holdings.queue(command.resource())
                    .size() && locked.position().equals(status.owner().map(o -> holdings.position(command.resource(), o))
                    .orElse(OptionalInt.empty())), RULES, "a status of " + command.resource() + " says "
                    + locked + " where the holders are " + holders + " and " + holdings.queue(command.resource())
                    .size() + " wait");
        }
        observed.decided(command, ownReply("").value(), Optional.empty());
    }

    /** What a status lists of each holder (a shared holder's value is left out). */
    private static List<String> listed(List<Lease> holders) {
        return holders.stream().map(l -> l.owner() + " " + l.fencingToken() + " #" + l.permit() + " until "
                + l.expiresAt()).toList();
    }

    private Outbound.ReplyRecord ownReply(String what) {
        Violation.check(expected.answer.isPresent() && expected.answer.get() instanceof Outbound.ReplyRecord,
                ONE_REPLY, what + " at offset " + offset + " got no reply of its own: " + expected.answer);
        return (Outbound.ReplyRecord) expected.answer.get();
    }

    private Verdict answer(String what) {
        return verdict(ownReply(what));
    }
}
