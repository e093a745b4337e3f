package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Now;
import dev.lockstep.protocol.LeaseEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
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
 * refused route is dead-lettered; an invalid one gets {@code invalid}; one whose resource this
 * partition does not decide ({@link Layout}: misrouted, or moved in a growth) gets {@code moved};
 * a valid one is decided by {@link CommandRules} (retry, validation, cancellation, quarantine,
 * queue, arbiter, in that order), at the record's place in its
 * partition's time ({@link PartitionTime}: its log-append time, or, anchored, the time the
 * worker's ticks measured) and with a new lease's token taken from the record's offset. A record
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

    /**
     * One record, already triaged, applied to the state (for {@link PreparedBatch}), in the order of
     * docs/protocol.md: a record applied before is answered again; time passes (leases and waits
     * that ended by the record's log time); the record's own command, or what a tick or a hand-over
     * shows; then the hand-over of each resource the record freed or named to its first waiter.
     */
    Step step(Inbound record, Triaged triaged, PartitionState state) {
        PartitionPosition position = state.position();
        if (record.offset() < position.nextOffset()) {
            return again(record, triaged, state, position.layoutOr(settings));
        }
        PartitionTime.Timed time = PartitionTime.of(record, triaged, position, settings);
        Now now = time.now();
        // Only a record the broker stamped may fix or end a quarantine: its time bounds the lost records'.
        Optional<Quarantine> quarantine = record.logAppendTime().isPresent()
                ? position.quarantine().flatMap(q -> q.at(now, settings.limits().maxTtl()))
                : position.quarantine();
        EventWriter events = new EventWriter(record, triaged instanceof Triaged.Answered answered
                ? Optional.of(answered.requestId()) : Optional.empty(), state);
        Queueing queueing = new Queueing(record, now, state, events, settings, quarantine.isPresent());
        if (record.logAppendTime().isPresent()) {
            timePasses(now.passed(), state, events, queueing, position.layoutOr(settings), record.partition());
        }
        if (position.quarantine().isPresent() && quarantine.isEmpty()) {
            queueing.quarantineEnded();
        }
        List<Outbound.Transfer> transfers = new ArrayList<>(0);
        Optional<Outbound> out = command(record, triaged, now, quarantine, state, events, queueing, transfers);
        // After the record's own command: each resource it freed or named, or that time freed,
        // goes to its first waiter, one grant per resource and record (the record's token is the grant's).
        Layout layout = state.position().layoutOr(settings);
        queueing.handOvers(resource -> layout.decides(resource, record.partition()));
        // The record's command may have re-routed the partition, or raised its tokens: from the position it left.
        state.position(state.position().advancedTo(record.offset() + 1, now.passed(), quarantine, time.lastTick(),
                time.liveAfter(state.takeDatedUntil(), quarantine)));
        return new Step(events.written(), queueing.replies(), out, queueing.due(), transfers);
    }

    /** A record applied before: the events, waiters' replies and answer it made then. */
    private static Step again(Inbound record, Triaged triaged, PartitionState state, Layout layout) {
        List<Outbound.Event> again = state.eventsAt(record.offset()).stream()
                .map(entry -> new Outbound.Event(record, entry)).toList();
        List<Outbound.ReplyRecord> decided = state.deferredAt(record.offset()).stream()
                .map(reply -> reply.publishedFor(record)).toList();
        return new Step(again, decided, Answers.again(record, triaged, state, layout));
    }

    /**
     * The leases that ended by {@code now} expire, in the order they ended; then the waits that
     * ended. A lease of a resource decided elsewhere (a worker read its row for a command that is
     * sent on) ends there, not here.
     */
    private static void timePasses(Instant now, PartitionState state, EventWriter events, Queueing queueing,
            Layout layout, int partition) {
        for (Lease lease : state.expireUntil(now)) {
            if (layout.decides(lease.resource(), partition)) {
                events.write(LeaseEvent.Kind.EXPIRED, lease, lease.expiresAt(), Optional.empty());
                queueing.freed(lease);
            }
        }
        queueing.endWaits();
    }

    /** What the record itself asks: a command's answer, a dead letter, or nothing (a tick, a hand-over, a growth's record). */
    private Optional<Outbound> command(Inbound record, Triaged triaged, Now now, Optional<Quarantine> quarantine,
            PartitionState state, EventWriter events, Queueing queueing, List<Outbound.Transfer> transfers) {
        Layout layout = state.position().layoutOr(settings);
        if (triaged instanceof Triaged.Tick) {
            return Optional.empty();
        } else if (triaged instanceof Triaged.HandOver handOver) {
            // One that comes after its resource left, or before it arrived, finds no waiter of it to grant.
            if (layout.decides(handOver.resource(), record.partition())) {
                queueing.handedOver(handOver.resource(), handOver.last());
            }
            return Optional.empty();
        } else if (triaged instanceof Triaged.DeadLetter dead) {
            return Optional.of(dead.of(record));
        } else if (triaged instanceof Triaged.Undelivered marker) {
            return Optional.of(Answers.undelivered(record, marker, state));
        } else if (triaged instanceof Triaged.Reject reject) {
            return Optional.of(reject.reply(record));
        } else if (triaged instanceof Triaged.Apply apply) {
            OptionalInt elsewhere = layout.sendTo(apply.command().resource(), record.partition(), record.offset());
            if (elsewhere.isPresent()) {
                return Optional.of(Answers.moved(record, apply, elsewhere.getAsInt(), layout));
            }
            Optional<Outbound> answer = new CommandRules(record, apply, now, quarantine, state, events, queueing,
                    settings, rules).apply();
            queueing.named(apply.command().resource());
            return answer;
        }
        Growing growing = new Growing(record, state, layout, now, quarantine, settings);
        Growing.Result result = triaged instanceof Triaged.Seal seal ? growing.seal(seal)
                : triaged instanceof Triaged.Carry carry ? growing.carry(carry)
                : growing.taken((Triaged.Taken) triaged, queueing);
        if (result instanceof Growing.Result.Refused refused) {
            return Optional.of(new Outbound.DeadLetter(record, refused.reason(), Outbound.Cause.UNREADABLE));
        }
        transfers.addAll(((Growing.Result.Applied) result).transfers());
        transfers.forEach(state::add);
        return Optional.empty();
    }
}
