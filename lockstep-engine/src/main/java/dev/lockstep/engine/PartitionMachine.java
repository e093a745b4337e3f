package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandClock;
import dev.lockstep.core.Decision;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
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
 * The partition state machine: one command record + the partition's state + the recorded settings
 * → what to publish for it, and the new state. No I/O, no clock, nothing from another partition.
 *
 * <p>The worker runs it over each batch against the state loaded for that batch; a replay runs it
 * over a whole partition in memory. Both get every reply, dead letter and token from it, so a
 * replay of the log reproduces the worker's output byte for byte.
 *
 * <pre>{@code
 * PartitionMachine machine = new PartitionMachine(settings);
 * PartitionState state = PartitionState.empty(PartitionPosition.START);
 * for (Inbound record : records) {            // one partition, in offset order
 *     Step step = machine.step(record, state);   // its lease events, then its reply or dead letter
 * }
 * }</pre>
 *
 * <p>The rules, in order: a record below the partition's next offset was applied already and is
 * answered as it was (its stored reply); one without a log-append time, unreadable, or with a
 * refused route is dead-lettered; an invalid one, or one on the wrong partition, gets
 * {@code invalid}; a request ID applied within the request retention (log time) gets its stored
 * reply, or {@code invalid} when the command differs; otherwise the arbiter decides, with "now"
 * the record's log-append time and a new lease's token taken from the record's offset. A record
 * the worker marked {@code lockstep-undeliverable} (a copy of an earlier record whose reply's
 * topic was missing) sends the reply that record got to the dead letters and decides nothing.
 *
 * <p>Lease events: a record with a log-append time first shows the expiry of every lease that
 * ended up to its time (in the order they ended); then a command that changed a lease says how.
 * A record applied before publishes the events it made then.
 */
public final class PartitionMachine {

    static final String REPLY_GONE = "already applied, but its reply is no longer stored";

    private final EngineSettings settings;
    private final Triage triage;
    private final Arbitration rules;

    public PartitionMachine(EngineSettings settings) {
        this(settings, Arbitration.RULES);
    }

    public PartitionMachine(EngineSettings settings, Arbitration rules) {
        this.settings = settings;
        this.triage = new Triage(settings);
        this.rules = rules;
    }

    public EngineSettings settings() {
        return settings;
    }

    /** Applies one record (the next of its partition, or one applied before) to {@code state}. */
    public Step step(Inbound record, PartitionState state) {
        return step(record, triage.triage(record), state);
    }

    /**
     * Reads a batch of one partition's records (in offset order) once, so that its caller can load
     * the state they touch before applying them.
     */
    public PreparedBatch prepare(List<Inbound> records) {
        return new PreparedBatch(this, records, records.stream().map(triage::triage).toList());
    }

    /** One record, already triaged, applied to the state (for {@link PreparedBatch}). */
    Step step(Inbound record, Triaged triaged, PartitionState state) {
        PartitionPosition position = state.position();
        if (record.offset() < position.nextOffset()) {
            List<Outbound.Event> again = state.eventsAt(record.offset()).stream()
                    .map(entry -> new Outbound.Event(record, entry)).toList();
            List<Outbound.ReplyRecord> decided = state.deferredAt(record.offset()).stream()
                    .map(reply -> reply.publishedFor(record)).toList();
            return new Step(again, decided, Answers.again(record, triaged, state));
        }
        Instant now = record.logAppendTime().map(t -> new CommandClock(position.clock()).next(t))
                .orElse(position.clock());
        // Only a record the broker stamped may fix or end a quarantine: its time bounds the lost records'.
        Optional<Quarantine> quarantine = record.logAppendTime().isPresent()
                ? position.quarantine().flatMap(q -> q.at(now, settings.limits().maxTtl()))
                : position.quarantine();
        EventWriter events = new EventWriter(record, triaged instanceof Triaged.Answered answered
                ? Optional.of(answered.requestId()) : Optional.empty(), state);
        Queueing queueing = new Queueing(record, now, state, events, settings);
        if (record.logAppendTime().isPresent()) {
            List<Lease> ended = state.expireUntil(now);
            ended.forEach(lease -> {
                events.write(LeaseEvent.Kind.EXPIRED, lease, lease.expiresAt(), Optional.empty());
                queueing.freed(lease);
            });
            queueing.endWaits();
        }
        Optional<Outbound> out;
        if (triaged instanceof Triaged.Tick) {
            out = Optional.empty();
        } else if (triaged instanceof Triaged.HandOver handOver) {
            queueing.handedOver(handOver.resource(), handOver.last());
            out = Optional.empty();
        } else if (triaged instanceof Triaged.DeadLetter dead) {
            out = Optional.of(dead.of(record));
        } else if (triaged instanceof Triaged.Undelivered marker) {
            out = Optional.of(Answers.undelivered(record, marker, state));
        } else if (triaged instanceof Triaged.Reject reject) {
            out = Optional.of(reject.reply(record));
        } else {
            Triaged.Apply apply = (Triaged.Apply) triaged;
            out = apply(record, apply, now, quarantine, state, events, queueing);
            queueing.named(apply.command().resource());
        }
        // After the record's own command: each resource it freed or named, or that log time freed,
        // goes to its first waiter, one grant per resource and record (the record's token is the grant's).
        queueing.handOvers();
        state.position(position.advancedTo(record.offset() + 1, now, quarantine));
        return new Step(events.written(), queueing.replies(), out, queueing.due());
    }

    /** The record's command decided, and its reply; none while the acquire waits in its resource's queue. */
    private Optional<Outbound> apply(Inbound record, Triaged.Apply apply, Instant now,
            Optional<Quarantine> quarantine, PartitionState state, EventWriter events, Queueing queueing) {
        Command command = apply.command();
        Fingerprint fingerprint = Fingerprint.of(command);
        Optional<Waiter> waiting = state.queues().waiting(command.requestId());
        if (waiting.isPresent()) {
            // A retry of an acquire that waits: its one reply comes when it is decided.
            return waiting.get().fingerprint().equals(fingerprint) ? Optional.empty()
                    : Optional.of(Answers.reusedRequestId(record, apply));
        }
        Optional<RequestEntry> prior = state.request(command.requestId()).filter(e -> e.rememberedAt(now, settings));
        if (prior.isPresent()) {
            return Optional.of(Answers.retried(record, apply, prior.get(), fingerprint));
        }
        Verdict verdict;
        Optional<Instant> until = quarantine.flatMap(Quarantine::until);
        Optional<Waiter> cancelled = command instanceof Command.Release release
                ? release.cancels().flatMap(id -> state.queues().waiting(id)) : Optional.empty();
        if (cancelled.isPresent()) {
            // The caller gave up on an acquire that still waits: it leaves the queue, granted nothing.
            if (cancelled.get().owner().equals(((Command.Release) command).owner())
                    && cancelled.get().resource().equals(command.resource())) {
                queueing.cancel(cancelled.get());
                verdict = new Verdict.NotFound();
            } else {
                verdict = new Verdict.Forbidden();
            }
        } else if (until.isPresent() && command instanceof Command.Acquire) {
            verdict = new Verdict.NotAcquired(Duration.between(now, until.get()));
        } else if (command instanceof Command.Acquire acquire && queueing.limitMismatch(acquire).isPresent()) {
            verdict = new Verdict.Invalid(Problem.invalidCommand(List.of(queueing.limitMismatch(acquire).get())));
        } else if (command instanceof Command.Acquire acquire && queueing.nextInLine(acquire.resource()).isPresent()) {
            // Free, but waiters come first: the first of them is granted it at this very record.
            Duration held = queueing.nextInLine(acquire.resource()).get().ttl();
            if (acquire.waits() && queueing.join(acquire, apply)) {
                return Optional.empty();
            }
            verdict = new Verdict.NotAcquired(held, acquire.waits() ? Optional.of(WaitEnd.QUEUE_FULL) : Optional.empty());
        } else if (command instanceof Command.Acquire acquire && queueing.ahead(acquire)) {
            // Room among the holders, but waiters come first: a newcomer never passes them.
            if (acquire.waits() && queueing.join(acquire, apply)) {
                return Optional.empty();
            }
            verdict = new Verdict.NotAcquired(queueing.remaining(acquire.resource()),
                    acquire.waits() ? Optional.of(WaitEnd.QUEUE_FULL) : Optional.empty());
        } else if (until.isPresent() && command instanceof Command.Renew) {
            verdict = new Verdict.NotFound();
        } else if (command instanceof Command.Release release && release.cancels().isPresent()
                && !Cancellation.grantHolds(release, now, state, settings)) {
            // What the cancelled acquire granted no longer holds, or it granted nothing (it was
            // refused, extended a lease its owner held before, or never reached the log).
            verdict = new Verdict.NotFound();
        } else {
            Holders holders = state.holders(command.resource());
            Decision decision = rules.decide(Cancellation.asRelease(command, state), holders, now,
                    state.position().tokenAt(record.offset()));
            Optional<String> cancels = command instanceof Command.Release r ? r.cancels() : Optional.empty();
            decision.write().ifPresent(written -> record(written, decision.verdict(),
                    holders.atPermit(written.permit()), now, state, events, cancels));
            if (decision.verdict() instanceof Verdict.Released) {
                decision.write().ifPresent(queueing::freed);
            }
            if (decision.verdict() instanceof Verdict.NotAcquired refused && command instanceof Command.Acquire acquire
                    && acquire.waits()) {
                if (queueing.join(acquire, apply)) {
                    return Optional.empty();
                }
                verdict = new Verdict.NotAcquired(refused.retryAfter(), Optional.of(WaitEnd.QUEUE_FULL));
            } else if (decision.verdict() instanceof Verdict.Locked locked) {
                verdict = state.queues().annotate(locked, command);
            } else {
                verdict = decision.verdict();
            }
        }
        byte[] reply = ReplyEncoder.encode(new Reply.Decided(command, verdict));
        state.put(new RequestEntry(command.requestId(), fingerprint, StoredReply.of(reply),
                record.offset(), now));
        return Optional.of(apply.reply(record, reply,
                new Outbound.Answer.Decided(Optional.of(command.type()), verdict.outcome())));
    }

    /**
     * Stores what the arbiter wrote and says what happened. A released lease is forgotten: tokens
     * come from positions, so nothing later depends on it. An expired one is kept for the request
     * retention, so that a grant to another owner within it is told apart as a takeover (the sweeper
     * removes it only after that, so whether it ran never changes an event).
     */
    private void record(Lease written, Verdict verdict, Optional<Lease> latest, Instant now, PartitionState state,
            EventWriter events, Optional<String> cancels) {
        if (verdict instanceof Verdict.Released) {
            state.remove(written);
            events.write(LeaseEvent.Kind.RELEASED, written, now, Optional.empty(), cancels);
            return;
        }
        state.put(written);
        LeaseEvent.Kind kind = latest.isPresent() && latest.get().fencingToken() == written.fencingToken()
                ? LeaseEvent.Kind.EXTENDED : Queueing.grantKind(latest, written, now, settings);
        events.write(kind, written, now, Optional.of(written.expiresAt()));
    }
}
