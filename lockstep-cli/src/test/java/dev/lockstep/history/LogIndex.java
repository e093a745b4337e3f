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
import java.util.TreeMap;

/**
 * Where in the log replies were decided: each record's log time, and each partition's token base
 * from each offset on (a lease's token is its granting record's offset plus one, over a base that
 * is 0 on a topic's first start, above every earlier token after a restore or a re-created topic,
 * and raised by a growth's taken above the token bound it names).
 *
 * @param times each record's log time, never earlier than an earlier record's of its partition
 * @param bases each partition's token base from each offset on, as the grants made by its own
 *     records and its takens show it
 */
record LogIndex(Map<Integer, Map<Long, Instant>> times, Map<Integer, TreeMap<Long, Long>> bases,
        Map<String, List<Integer>> journeys) {

    /** A record: its partition, offset, and its partition's stage in the resource's history. */
    record Position(int partition, long offset, int stage) {
    }

    static LogIndex of(History history, Collection<HistoryChecker.Observed> first) {
        Map<Integer, Map<Long, Instant>> times = new HashMap<>();
        Map<Integer, Instant> clocks = new HashMap<>();
        Map<Integer, TreeMap<Long, Long>> takens = new HashMap<>();
        history.log().stream()
                .sorted(Comparator.comparingInt(LoggedRecord::partition).thenComparingLong(LoggedRecord::offset))
                .forEach(record -> {
                    times.computeIfAbsent(record.partition(), p -> new HashMap<>()).put(record.offset(),
                            clocks.merge(record.partition(), record.logAppendTime(),
                                    (previous, time) -> time.isBefore(previous) ? previous : time));
                    record.takenBound().ifPresent(bound -> takens.computeIfAbsent(record.partition(),
                            p -> new TreeMap<>()).put(record.offset(), bound));
                });
        // An acquire granted at its own record names its token there; one that extends an owner's
        // lease names an older token (one carried from another partition too: at or below the
        // bound of the taken before it), so the largest difference in each stretch is its base.
        Map<Integer, TreeMap<Long, Long>> samples = new HashMap<>();
        for (HistoryChecker.Observed observed : first) {
            history.replies().getOrDefault(observed.requestId(), List.of()).stream().findFirst()
                    .flatMap(ReplyDecoder::decode).map(ReplyDecoder.ReplyMessage::reply)
                    .filter(reply -> reply instanceof Verdict.Acquired a && a.waited().isEmpty())
                    .ifPresent(reply -> {
                        int partition = observed.record().partition();
                        long offset = observed.record().offset();
                        long token = ((Verdict.Acquired) reply).lease().fencingToken();
                        Map.Entry<Long, Long> taken = takens.getOrDefault(partition, new TreeMap<>()).floorEntry(offset);
                        if (taken == null || token > taken.getValue()) {
                            samples.computeIfAbsent(partition, p -> new TreeMap<>()).merge(
                                    taken == null ? -1L : taken.getKey(), token - offset - 1, Math::max);
                        }
                    });
        }
        Map<Integer, TreeMap<Long, Long>> bases = new HashMap<>();
        for (int partition : union(takens.keySet(), samples.keySet())) {
            TreeMap<Long, Long> steps = new TreeMap<>();
            TreeMap<Long, Long> seen = samples.getOrDefault(partition, new TreeMap<>());
            long base = Math.max(0, seen.getOrDefault(-1L, 0L));
            steps.put(-1L, base);
            for (Map.Entry<Long, Long> taken : takens.getOrDefault(partition, new TreeMap<>()).entrySet()) {
                base = Math.max(base, Math.max(taken.getValue() - taken.getKey(), seen.getOrDefault(taken.getKey(), 0L)));
                steps.put(taken.getKey(), base);
            }
            bases.put(partition, steps);
        }
        // Each resource's partitions in the order it was decided on them (HistoryChecker.Observed#stage).
        Map<String, java.util.TreeMap<Integer, Integer>> stages = new HashMap<>();
        first.forEach(observed -> stages.computeIfAbsent(observed.resource(), r -> new java.util.TreeMap<>())
                .putIfAbsent(observed.stage(), observed.record().partition()));
        Map<String, List<Integer>> journeys = new HashMap<>();
        stages.forEach((resource, byStage) -> journeys.put(resource, List.copyOf(byStage.values())));
        return new LogIndex(times, bases, journeys);
    }

    private static java.util.Set<Integer> union(java.util.Set<Integer> a, java.util.Set<Integer> b) {
        java.util.Set<Integer> all = new java.util.TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * The record that decided an acquire: a waiter's grant, its token's record when that comes
     * after the acquire's own, on the acquire's partition or on one its resource went to after
     * (a waiter carried in a growth is granted there); otherwise the acquire's own.
     */
    Position decidedBy(HistoryChecker.Observed observed, Verdict.Acquired acquired) {
        int partition = observed.record().partition();
        long own = observed.record().offset();
        Position itself = new Position(partition, own, observed.stage());
        if (acquired.waited().isEmpty()) {
            return itself;
        }
        long token = acquired.lease().fencingToken();
        Optional<Long> here = recordOf(partition, token).filter(at -> at > own);
        if (here.isPresent()) {
            return new Position(partition, here.get(), observed.stage());
        }
        List<Integer> journey = journeys.getOrDefault(observed.resource(), List.of());
        for (int stage = observed.stage() + 1; stage < journey.size(); stage++) {
            Optional<Long> there = recordOf(journey.get(stage), token);
            if (there.isPresent()) {
                return new Position(journey.get(stage), there.get(), stage);
            }
        }
        return itself;
    }

    /** The offset whose record's token, over the base in force there, is {@code token}; empty when none is. */
    private Optional<Long> recordOf(int partition, long token) {
        TreeMap<Long, Long> steps = bases.get(partition);
        if (steps == null) {
            return Optional.empty();
        }
        for (Map.Entry<Long, Long> step : steps.entrySet()) {
            long at = token - 1 - step.getValue();
            Long next = steps.higherKey(step.getKey());
            if (at >= 0 && at >= step.getKey() && (next == null || at < next)
                    && times.getOrDefault(partition, Map.of()).containsKey(at)) {
                return Optional.of(at);
            }
        }
        return Optional.empty();
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
        Position by = decidedBy(observed, acquired);
        Instant logged = by.partition() != observed.record().partition() || by.offset() > observed.record().offset()
                ? times.getOrDefault(by.partition(), Map.of()).get(by.offset()) : null;
        return logged != null && logged.isAfter(at) ? logged : at;
    }
}
