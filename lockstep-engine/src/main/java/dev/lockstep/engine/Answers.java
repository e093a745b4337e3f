package dev.lockstep.engine;

import dev.lockstep.core.CommandType;
import dev.lockstep.core.Outcome;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.Fingerprint;
import dev.lockstep.protocol.ReplyDecoder;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Answers the {@link PartitionMachine} gives without deciding anything: to a record applied
 * before and fetched again, to a marker of an undeliverable reply, to a retried request ID.
 */
final class Answers {

    private Answers() {
    }

    /**
     * A record applied before (redelivered after a failed acknowledgement): the same answer again.
     * Its request's entry says how it was answered: at its own offset it was applied; at an earlier
     * one it was a retry of that; at a later one, or swept, its reply is gone and cannot be rebuilt.
     */
    static Optional<Outbound> again(Inbound record, Triaged triaged, PartitionState state, Layout layout) {
        if (triaged instanceof Triaged.Tick || triaged instanceof Triaged.HandOver || triaged instanceof Triaged.Seal
                || triaged instanceof Triaged.Carry || triaged instanceof Triaged.Taken) {
            // A growth's transfers were stored with its batch and are sent from there; it answers nothing.
            return Optional.empty();
        } else if (triaged instanceof Triaged.DeadLetter dead) {
            return Optional.of(dead.of(record));
        } else if (triaged instanceof Triaged.Undelivered marker) {
            return Optional.of(undelivered(record, marker, state));
        } else if (triaged instanceof Triaged.Reject reject) {
            return Optional.of(reject.reply(record));
        }
        Triaged.Apply apply = (Triaged.Apply) triaged;
        Fingerprint fingerprint = Fingerprint.of(apply.command());
        Optional<RequestEntry> entry = state.request(apply.requestId()).filter(e -> e.offset() <= record.offset());
        Optional<Waiter> waiting = state.queues().waiting(apply.requestId());
        if (entry.isEmpty() && waiting.isPresent()) {
            return whileWaiting(record, apply, waiting.get().offset(), waiting.get().fingerprint(), fingerprint);
        } else if (entry.isPresent() && decidedAfter(entry.get(), record)) {
            // Decided since: this record came while the acquire waited.
            return whileWaiting(record, apply, entry.get().offset(), entry.get().fingerprint(), fingerprint);
        } else if (entry.isEmpty()) {
            // A command sent on is not stored: its partition sends it on again, as the layout says it did.
            OptionalInt elsewhere = layout.sendTo(apply.command().resource(), record.partition(), record.offset());
            return Optional.of(elsewhere.isPresent() ? moved(record, apply, elsewhere.getAsInt(), layout)
                    : new Outbound.DeadLetter(record, PartitionMachine.REPLY_GONE, Outbound.Cause.REPLY_GONE));
        }
        return Optional.of(retried(record, apply, entry.get(), fingerprint));
    }

    /**
     * A command whose resource is decided elsewhere: sent on to {@code partition}, under the
     * request ID it came with. Not stored: the partition that decides it stores its answer, and a
     * retry here is sent on again.
     */
    static Outbound.ReplyRecord moved(Inbound record, Triaged.Apply apply, int partition, Layout layout) {
        Verdict.Moved moved = new Verdict.Moved(partition, Math.max(layout.partitions(), partition + 1));
        return apply.reply(record, ReplyEncoder.encode(new Reply.Decided(apply.command(), moved)),
                new Outbound.Answer.Decided(Optional.of(apply.command().type()), Outcome.MOVED));
    }

    /**
     * Whether a waiting acquire was decided after {@code record}'s own command: by a later record,
     * or at its turn by this one (a hand-over follows the record's command: a grant, an extension,
     * or {@code invalid}); only a wait that ends is answered before it.
     */
    private static boolean decidedAfter(RequestEntry entry, Inbound record) {
        return entry.deferred() && (entry.decidedAt() > record.offset() || entry.decidedAt() == record.offset()
                && ReplyDecoder.decode(entry.reply().bytes()).filter(r -> !(r.reply() instanceof Verdict.NotAcquired
                        notAcquired && notAcquired.reason().filter(WaitEnd.WAIT_EXPIRED::equals).isPresent()))
                        .isPresent());
    }

    /**
     * A record of an acquire's request ID while that acquire waited in its queue: the acquire that
     * joined it here, or a retry of it, got no reply (the record that decides it sends it); another
     * command reusing the ID was invalid.
     */
    private static Optional<Outbound> whileWaiting(Inbound record, Triaged.Apply apply, long queuedAt,
            Fingerprint queued, Fingerprint fingerprint) {
        return queuedAt == record.offset() || queued.equals(fingerprint) ? Optional.empty()
                : Optional.of(reusedRequestId(record, apply));
    }

    /**
     * A marker: the reply the marked record got, to the dead letters. It is that record's answer
     * again (its request's entry as of its offset), so the dead letter is the log's, whenever and
     * by whomever the marker was written; the marker itself changes no lease and no request entry.
     */
    static Outbound undelivered(Inbound record, Triaged.Undelivered marker, PartitionState state) {
        if (marker.marked() instanceof Triaged.Reject reject) {
            return reject.reply(record).undeliverable(marker.reason());
        }
        if (marker.marked() instanceof Triaged.Waited waited) {
            // Only a reply a later record decided for the acquire at the marked offset is named.
            Optional<RequestEntry> entry = state.request(waited.requestId())
                    .filter(e -> e.offset() == marker.offset() && e.deferred() && e.decidedAt() < record.offset());
            return entry.<Outbound>map(e -> waited.reply(record, e.reply().bytes(),
                    new Outbound.Answer.Repeated(Optional.of(CommandType.ACQUIRE))).undeliverable(marker.reason()))
                    .orElseGet(() -> new Outbound.DeadLetter(record, PartitionMachine.REPLY_GONE, Outbound.Cause.REPLY_GONE));
        }
        Triaged.Apply apply = (Triaged.Apply) marker.marked();
        Optional<RequestEntry> entry = state.request(apply.requestId()).filter(e -> e.offset() <= marker.offset());
        if (entry.isEmpty()) {
            return new Outbound.DeadLetter(record, PartitionMachine.REPLY_GONE, Outbound.Cause.REPLY_GONE);
        }
        return retried(record, apply, entry.get(), Fingerprint.of(apply.command())).undeliverable(marker.reason());
    }

    /** The stored reply again when the command is the same; {@code invalid} when the request ID is reused. */
    static Outbound.ReplyRecord retried(Inbound record, Triaged.Apply apply, RequestEntry prior,
            Fingerprint fingerprint) {
        Optional<CommandType> type = Optional.of(apply.command().type());
        if (prior.fingerprint().equals(fingerprint)) {
            return apply.reply(record, prior.reply().bytes(), new Outbound.Answer.Repeated(type));
        }
        return reusedRequestId(record, apply);
    }

    static Outbound.ReplyRecord reusedRequestId(Inbound record, Triaged.Apply apply) {
        return apply.reply(record, ReplyEncoder.encode(Reply.Rejected.reusedRequestId(apply.command())),
                new Outbound.Answer.Decided(Optional.of(apply.command().type()), Outcome.INVALID));
    }
}
