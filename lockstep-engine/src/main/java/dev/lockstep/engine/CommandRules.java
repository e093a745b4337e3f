package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Decision;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Now;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.Fingerprint;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One valid command's rules, in the order of docs/protocol.md: a {@linkplain #retry retry} is
 * answered as it was; {@linkplain #validation validation} that needs the resource's state; a
 * {@linkplain #cancellation cancellation}; the {@linkplain #quarantine quarantine}; the
 * {@linkplain #queue queue}; the {@linkplain #arbiter arbiter}. The first step that decides,
 * decides. An acquire refused because others hold the resource or wait for it joins the queue
 * when it asked to wait, in {@link #answer one place}.
 */
final class CommandRules {

    /** What a step decided. */
    private sealed interface Ruling {
    }

    /** Answered as before, no entry written: a retry's stored reply, or nothing while it waits. */
    private record Repeat(Optional<Outbound> answer) implements Ruling {
    }

    /** Decided: the verdict is stored for the request ID and answered. */
    private record Decided(Verdict verdict) implements Ruling {
    }

    /** Others hold the resource, or wait for it: an acquire that asked to wait joins its queue. */
    private record Refused(Duration retryAfter) implements Ruling {
    }

    private final Inbound record;
    private final Triaged.Apply apply;
    private final Command command;
    private final Fingerprint fingerprint;
    private final Now now;
    private final Optional<Quarantine> quarantine;
    private final PartitionState state;
    private final EventWriter events;
    private final Queueing queueing;
    private final EngineSettings settings;
    private final Arbitration rules;

    /** @param quarantine the partition's quarantine as it stands at this record's log time */
    CommandRules(Inbound record, Triaged.Apply apply, Now now, Optional<Quarantine> quarantine,
            PartitionState state, EventWriter events, Queueing queueing, EngineSettings settings, Arbitration rules) {
        this.record = record;
        this.apply = apply;
        this.command = apply.command();
        this.fingerprint = Fingerprint.of(command);
        this.now = now;
        this.quarantine = quarantine;
        this.state = state;
        this.events = events;
        this.queueing = queueing;
        this.settings = settings;
        this.rules = rules;
    }

    /** The command decided, and its reply; none while the acquire waits in its resource's queue. */
    Optional<Outbound> apply() {
        Ruling ruling = retry().or(this::validation).or(this::cancellation).or(this::quarantine).or(this::queue)
                .orElseGet(this::arbiter);
        return answer(ruling);
    }

    /**
     * A request ID seen before: a retry of an acquire that waits gets nothing (its one reply comes
     * when it is decided); one remembered gets its stored reply; either, asking something else, is invalid.
     */
    private Optional<Ruling> retry() {
        Optional<Waiter> waiting = state.queues().waiting(command.requestId());
        if (waiting.isPresent()) {
            return Optional.of(new Repeat(waiting.get().fingerprint().equals(fingerprint) ? Optional.empty()
                    : Optional.of(Answers.reusedRequestId(record, apply))));
        }
        return state.request(command.requestId()).filter(entry -> entry.rememberedAt(now.passed(), settings))
                .map(prior -> new Repeat(Optional.of(Answers.retried(record, apply, prior, fingerprint))));
    }

    /** A shared acquire names the resource's limit, whoever holds it and whatever waits. */
    private Optional<Ruling> validation() {
        return command instanceof Command.Acquire acquire ? queueing.limitMismatch(acquire)
                .map(error -> new Decided(new Verdict.Invalid(Problem.invalidCommand(List.of(error))))) : Optional.empty();
    }

    /**
     * A release that cancels an acquire: one still waiting leaves the queue, granted nothing; one
     * that granted a lease still held goes on to the arbiter, which releases that lease; otherwise
     * there is nothing to cancel.
     */
    private Optional<Ruling> cancellation() {
        if (!(command instanceof Command.Release release) || release.cancels().isEmpty()) {
            return Optional.empty();
        }
        Optional<Waiter> cancelled = state.queues().waiting(release.cancels().get());
        if (cancelled.isPresent()) {
            if (!cancelled.get().owner().equals(release.owner()) || !cancelled.get().resource().equals(release.resource())) {
                return Optional.of(new Decided(new Verdict.Forbidden()));
            }
            queueing.cancel(cancelled.get());
            return Optional.of(new Decided(new Verdict.NotFound()));
        }
        return Cancellation.grant(release, now.passed(), state, settings).isPresent() ? Optional.empty()
                : Optional.of(new Decided(new Verdict.NotFound()));
    }

    /** Lost records may have granted leases nobody knows of: none is granted or renewed until they have all ended. */
    private Optional<Ruling> quarantine() {
        Optional<Instant> until = quarantine.flatMap(Quarantine::until);
        if (until.isEmpty()) {
            return Optional.empty();
        } else if (command instanceof Command.Acquire) {
            return Optional.of(new Decided(new Verdict.NotAcquired(Duration.between(now.passed(), until.get()))));
        } else if (command instanceof Command.Renew) {
            return Optional.of(new Decided(new Verdict.NotFound()));
        }
        return Optional.empty();
    }

    /**
     * Waiters come first: an acquire of an owner that holds no lease of a resource others wait for
     * never passes them, though the holders leave room (a queued writer keeps later readers out),
     * or nobody holds it (its first waiter is granted it at this very record).
     */
    private Optional<Ruling> queue() {
        if (!(command instanceof Command.Acquire acquire)) {
            return Optional.empty();
        }
        Optional<Waiter> first = state.queues().first(acquire.resource());
        List<Lease> live = state.holders(acquire.resource()).liveAt(now.passed());
        if (first.isEmpty() || live.stream().anyMatch(lease -> lease.isOwnedBy(acquire.owner()))) {
            return Optional.empty();
        }
        return Optional.of(new Refused(live.isEmpty() ? first.get().ttl() : queueing.remaining(acquire.resource())));
    }

    /** The lock rules, at the record's place in time ({@link Now}), and a new lease's token the record's. */
    private Ruling arbiter() {
        Holders holders = state.holders(command.resource());
        Decision decision = rules.decide(Cancellation.asRelease(command, state, now.passed(), settings), holders, now,
                state.position().tokenAt(record.offset()));
        decision.write().ifPresent(written -> record(written, decision.verdict(), holders.atPermit(written.permit())));
        if (decision.verdict() instanceof Verdict.Released) {
            decision.write().ifPresent(queueing::freed);
        }
        if (decision.verdict() instanceof Verdict.NotAcquired refused) {
            return new Refused(refused.retryAfter());
        } else if (decision.verdict() instanceof Verdict.Locked locked) {
            return new Decided(state.queues().annotate(locked, command));
        }
        return new Decided(decision.verdict());
    }

    /** The one place an acquire joins its resource's queue: refused, it asked to wait, and the queue has room. */
    private Optional<Outbound> answer(Ruling ruling) {
        if (ruling instanceof Repeat repeat) {
            return repeat.answer();
        }
        Verdict verdict;
        if (ruling instanceof Refused refused) {
            Command.Acquire acquire = (Command.Acquire) command;
            if (!acquire.waits()) {
                verdict = new Verdict.NotAcquired(refused.retryAfter());
            } else if (queueing.join(acquire, apply)) {
                return Optional.empty();
            } else {
                verdict = new Verdict.NotAcquired(refused.retryAfter(), Optional.of(WaitEnd.QUEUE_FULL));
            }
        } else {
            verdict = ((Decided) ruling).verdict();
        }
        byte[] reply = ReplyEncoder.encode(new Reply.Decided(command, verdict));
        state.put(new RequestEntry(command.requestId(), fingerprint, StoredReply.of(reply), record.offset(),
                now.passed()));
        return Optional.of(apply.reply(record, reply, new Outbound.Answer.Decided(Optional.of(command.type()),
                verdict.outcome())));
    }

    /**
     * Stores what the arbiter wrote and says what happened. A released lease is forgotten: tokens
     * come from positions, so nothing later depends on it. An expired one is kept for the request
     * retention, so that a grant to another owner within it is told apart as a takeover (the sweeper
     * removes it only after that, so whether it ran never changes an event).
     */
    private void record(Lease written, Verdict verdict, Optional<Lease> latest) {
        if (verdict instanceof Verdict.Released) {
            state.remove(written);
            Optional<String> cancels = command instanceof Command.Release release ? release.cancels() : Optional.empty();
            // Said at the latest the release may be, as a grant at this record is dated: an audit's
            // holds then follow one another, though the lease stopped counting as live at the earliest.
            events.write(LeaseEvent.Kind.RELEASED, written, now.from(), Optional.empty(), cancels);
            return;
        }
        state.put(written);
        LeaseEvent.Kind kind = latest.isPresent() && latest.get().fencingToken() == written.fencingToken()
                ? LeaseEvent.Kind.EXTENDED : Queueing.grantKind(latest, written, now.passed(), settings);
        events.write(kind, written, now.from(), Optional.of(written.expiresAt()));
    }
}
