package dev.lockstep.history;

import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Instant;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where in the log replies were decided: each record's log time, and each partition's token base
 * (a lease's token is its granting record's offset plus one, over a base that is 0 on a topic's
 * first start and above every earlier token after a restore or a re-created topic).
 *
 * @param times each record's log time, never earlier than an earlier record's of its partition
 * @param bases each partition's token base, as the grants made by their own records show it
 */
record LogIndex(Map<Integer, Map<Long, Instant>> times, Map<Integer, Long> bases) {

    static LogIndex of(History history, Collection<HistoryChecker.Observed> first) {
        Map<Integer, Map<Long, Instant>> times = new HashMap<>();
        Map<Integer, Instant> clocks = new HashMap<>();
        history.log().stream()
                .sorted(Comparator.comparingInt(LoggedRecord::partition).thenComparingLong(LoggedRecord::offset))
                .forEach(record -> times.computeIfAbsent(record.partition(), p -> new HashMap<>()).put(record.offset(),
                        clocks.merge(record.partition(), record.logAppendTime(),
                                (previous, time) -> time.isBefore(previous) ? previous : time)));
        // An acquire granted at its own record names its token there; one that extends an owner's
        // lease names an older token, so the largest difference is the base.
        Map<Integer, Long> bases = new HashMap<>();
        for (HistoryChecker.Observed observed : first) {
            history.replies().getOrDefault(observed.requestId(), List.of()).stream().findFirst()
                    .flatMap(ReplyDecoder::decode).map(ReplyDecoder.ReplyMessage::reply)
                    .filter(reply -> reply instanceof Verdict.Acquired a && a.waited().isEmpty())
                    .ifPresent(reply -> bases.merge(observed.record().partition(),
                            ((Verdict.Acquired) reply).lease().fencingToken() - observed.record().offset() - 1,
                            Math::max));
        }
        return new LogIndex(times, bases);
    }

    /**
     * The offset of the record that decided an acquire: a waiter's grant, its token's record when
     * that comes after the acquire's own; otherwise the acquire's own.
     */
    long decidedBy(HistoryChecker.Observed observed, Verdict.Acquired acquired) {
        long own = observed.record().offset();
        if (acquired.waited().isEmpty()) {
            return own;
        }
        Optional<Long> base = Optional.ofNullable(bases.get(observed.record().partition()));
        return base.map(b -> acquired.lease().fencingToken() - 1 - b).filter(at -> at > own).orElse(own);
    }

    /**
     * When a reply was decided, in log time: its record's, or a waiter's grant's record's when it
     * is known; else the acquire's plus the {@code waited_ms} its reply says, which a worker keeping
     * time at its ticks understates.
     */
    Instant decidedAt(HistoryChecker.Observed observed, Verdict verdict) {
        if (!(verdict instanceof Verdict.Acquired acquired) || acquired.waited().isEmpty()) {
            return observed.now();
        }
        Instant at = observed.now().plus(acquired.waited().get());
        long by = decidedBy(observed, acquired);
        Instant logged = by > observed.record().offset()
                ? times.getOrDefault(observed.record().partition(), Map.of()).get(by) : null;
        return logged != null && logged.isAfter(at) ? logged : at;
    }
}
