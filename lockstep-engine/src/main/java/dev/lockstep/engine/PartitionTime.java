package dev.lockstep.engine;

import dev.lockstep.core.CommandClock;
import dev.lockstep.core.Now;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.Tick;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * A record's place in its partition's time ({@link Now}), under the recorded {@link Timekeeping}.
 *
 * <p>Anchored, the partition's clock (what has passed) moves only at ticks. A tick that measured
 * from the last tick in the log moves it by the time the worker measured, never by more than
 * the broker's clock moved between the two ticks, and, when records came between them, never by
 * more than the slack; any other tick moves it not at all. A record between ticks is dated
 * {@code slack} after the clock. So what a record starts is dated no earlier than it happened, and
 * its end is reached no sooner than real time reaches it: the first tick after the record moves
 * time by the slack at most, and each later one by what the worker saw pass since the one before.
 *
 * <p>Time measured this way falls behind the log's while the worker is away (a tick of a new
 * worker measures nothing). It catches up when nothing dated is live: with no lease or
 * quarantine to end, the clock moves to the record's log-append time, and nothing can end early.
 */
final class PartitionTime {

    /**
     * @param now the record's place in time
     * @param lastTick the last tick after the record
     * @param liveUntil what was dated before the record ends by then (empty while log time is kept)
     */
    record Timed(Now now, Optional<TickMark> lastTick, Optional<Instant> liveUntil) {

        /** The position's {@code liveUntil} after the record: covering what it dated too. */
        Optional<Instant> liveAfter(Optional<Instant> dated, Optional<Quarantine> quarantine) {
            return liveUntil.map(until -> later(later(until, dated), quarantine.flatMap(Quarantine::until)));
        }
    }

    private PartitionTime() {
    }

    static Timed of(Inbound record, Triaged triaged, PartitionPosition position, EngineSettings settings) {
        if (record.logAppendTime().isEmpty()) {
            return new Timed(Now.at(position.clock()), position.lastTick(), position.liveUntil());
        }
        Instant log = record.logAppendTime().get().truncatedTo(ChronoUnit.MILLIS);
        if (!(settings.timekeeping() instanceof Timekeeping.Anchored anchored)) {
            return new Timed(Now.at(new CommandClock(position.clock()).next(log)), Optional.empty(), Optional.empty());
        }
        Instant passed = position.clock();
        Optional<TickMark> lastTick = position.lastTick();
        // Unknown (kept from before time was anchored): what was dated then ends within the longest TTL or wait.
        Instant liveUntil = position.liveUntil()
                .orElse(passed.plus(settings.limits().maxTtl()).plus(Limits.MAX_WAIT));
        boolean tick = triaged instanceof Triaged.Tick;
        if (triaged instanceof Triaged.Tick measured) {
            passed = passed.plus(advance(lastTick, record.offset(), log, measured.measured(), anchored.slack()));
            lastTick = Optional.of(new TickMark(record.offset(), log));
        }
        // Judged before this record moves time: at the record where the last lease ends, its
        // waiters are granted with the time they waited measured, not caught up.
        if (position.quarantine().isEmpty() && !liveUntil.isAfter(position.clock()) && log.isAfter(passed)) {
            passed = log;
        }
        Now now = tick ? Now.at(passed) : new Now(passed, passed.plus(anchored.slack()));
        return new Timed(now, lastTick, Optional.of(liveUntil));
    }

    /** How far a tick moves the partition's clock. */
    static Duration advance(Optional<TickMark> last, long offset, Instant log, Optional<Tick.Measured> measured,
            Duration slack) {
        if (last.isEmpty()) {
            return Duration.ZERO;
        }
        Duration broker = Duration.between(last.get().logTime(), log);
        if (broker.isNegative()) {
            return Duration.ZERO;
        }
        if (measured.isEmpty() || measured.get().prev() != last.get().offset()) {
            // Measured from nothing, or from another tick (another worker's, a lost one): no time
            // is known to have passed since the last, which may have dated a lease at its own time.
            return Duration.ZERO;
        }
        boolean recordsBetween = offset - 1 != last.get().offset();
        return shorter(measured.get().elapsed(), recordsBetween ? shorter(broker, slack) : broker);
    }

    private static Duration shorter(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Instant later(Instant a, Optional<Instant> b) {
        return b.filter(other -> other.isAfter(a)).orElse(a);
    }
}
