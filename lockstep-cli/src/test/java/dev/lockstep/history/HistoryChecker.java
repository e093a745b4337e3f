package dev.lockstep.history;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.core.Outcome;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.ReplyDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a recorded {@link History} the way Jepsen checks a lock, by what clients were told and
 * nothing of the engine: every request acknowledged by the broker is in the command log and was
 * answered, each time the same way; on each resource no two leases overlap, one token is never two
 * owners', fencing tokens (an election's terms) only grow, waiters are served in the order they
 * queued ({@link QueueOrder}), a lease publishes the value its acquire gave, and no two clients
 * acted as holders at once: what each believed lies inside its lease ({@link Beliefs}). Whether each reply and event is the one the log decides
 * is {@code lockstep replay}'s to say (the fault runs run it after this check): one engine, one
 * comparison, both in main.
 *
 * <pre>{@code
 * HistoryChecker.Result result = HistoryChecker.check(history);
 * result.assertSafe();                 // AssertionError with readable counterexamples
 * }</pre>
 */
public final class HistoryChecker {

    private static final int SHOWN = Integer.getInteger("lockstep.checker.shown", 15);
    private static final CommandDecoder DECODER = new CommandDecoder(Limits.defaults());

    /** What the check found, with the figures a report needs. */
    public record Result(int requestsSent, int logRecords, int replies, int leasesGranted, List<String> violations) {

        public Result {
            violations = List.copyOf(violations);
        }

        public void assertSafe() {
            if (!violations.isEmpty()) {
                throw new AssertionError(violations.size() + " violation(s) in a history of " + requestsSent
                        + " requests, " + logRecords + " command records and " + replies + " replies:\n  "
                        + String.join("\n  ", violations.subList(0, Math.min(SHOWN, violations.size())))
                        + (violations.size() > SHOWN ? "\n  ..." : ""));
            }
        }

        @Override
        public String toString() {
            return requestsSent + " requests sent, " + logRecords + " command records, " + replies + " replies, "
                    + leasesGranted + " leases granted, " + violations.size() + " violations";
        }
    }

    /**
     * One lease of a resource as the replies told it: from the log time it was decided until its
     * TTL ran out or it was released, in log time; {@code dated} is the instant its grant named, in
     * the partition's time (what events and the audit say).
     */
    public record SeenLease(String owner, long fencingToken, Instant from, Instant until, Instant dated) {

        public SeenLease(String owner, long fencingToken, Instant from, Instant until) {
            this(owner, fencingToken, from, until, from);
        }
    }

    /**
     * A request's first record in the log, which is the one applied, and its "now": the record's
     * log-append time, never earlier than an earlier record's of its partition.
     */
    record Observed(LoggedRecord record, String requestId, String resource, Instant now, int stage) {

        Observed(LoggedRecord record, String requestId, String resource, Instant now) {
            this(record, requestId, resource, now, 0);
        }

        /**
         * The record's place in its resource's history: its offset, after every record of the
         * partitions the resource was decided on before this one (the command topic grew).
         */
        long order() {
            return order(record.offset());
        }

        /** As {@link #order()}, for another record of the same partition. */
        long order(long offset) {
            return ((long) stage << 40) | offset;
        }
    }

    private HistoryChecker() {
    }

    /** The leases of every resource, in order, as the replies of {@code history} told them. */
    public static Map<String, List<SeenLease>> leasesSeen(History history) {
        Map<String, List<SeenLease>> seen = new TreeMap<>();
        timelines(history, staged(history, firstRecords(history))).forEach((resource, timeline) -> seen.put(resource, timeline.leases()));
        return seen;
    }

    /** Whether the brokers' clocks kept real time in the history, so that its log times stand for it. */
    public enum BrokerClocks {
        TRUE,
        /** A leader's clock was stepped: log times say nothing of real time, beliefs are judged side by side. */
        SKEWED
    }

    public static Result check(History history) {
        return check(history, BrokerClocks.TRUE);
    }

    public static Result check(History history, BrokerClocks clocks) {
        Map<String, Observed> first = staged(history, firstRecords(history));
        List<String> violations = new ArrayList<>();
        checkEveryRequestAnswered(history, first, violations);
        checkEachRequestAnsweredOneWay(history, violations);
        Map<String, LeaseTimeline> timelines = timelines(history, first);
        timelines.values().forEach(t -> violations.addAll(t.violations(clocks)));
        violations.addAll(QueueOrder.violations(history, first, LogIndex.of(history, first.values())));
        checkGrantsPublishTheirValues(history, first, violations);
        Map<String, List<SeenLease>> seen = new TreeMap<>();
        timelines.forEach((resource, timeline) -> seen.put(resource, timeline.leases()));
        violations.addAll(Beliefs.violations(seen, history.beliefs(), clocks));
        int grants = timelines.values().stream().mapToInt(LeaseTimeline::grantCount).sum();
        return new Result(history.sent().size(), history.log().size(), history.replyCount(), grants, violations);
    }

    /**
     * Each request ID's first record that a reply can answer: the earliest in log time (a request
     * sent again after the command topic grew may have a record on another partition too), the
     * earlier partition and offset first at one instant.
     */
    private static Map<String, Observed> firstRecords(History history) {
        Map<String, Observed> first = new LinkedHashMap<>();
        Map<Integer, Instant> clocks = new HashMap<>();
        history.log().stream()
                .sorted(Comparator.comparingInt(LoggedRecord::partition).thenComparingLong(LoggedRecord::offset))
                .forEach(record -> {
                    Instant now = clocks.merge(record.partition(), record.logAppendTime(),
                            (previous, time) -> time.isBefore(previous) ? previous : time);
                    if (DECODER.decode(record.key(), record.value()) instanceof ParsedCommand.Valid valid) {
                        first.merge(valid.requestId(), new Observed(record, valid.requestId(),
                                valid.command().resource(), now),
                                (earlier, later) -> later.now().isBefore(earlier.now()) ? later : earlier);
                    }
                });
        return first;
    }

    /**
     * Each request's first record placed in its resource's history: a resource decided on one
     * partition and then, after the command topic grew, on another has its stages in the order its
     * decisions came (stage 0 the first partition): its offsets on one are not comparable with the other's.
     */
    private static Map<String, Observed> staged(History history, Map<String, Observed> first) {
        Map<String, Map<Integer, Instant>> firstDecision = new HashMap<>();
        first.values().forEach(observed -> {
            boolean decided = history.replies().getOrDefault(observed.requestId(), List.of()).stream()
                    .map(ReplyDecoder::decode).flatMap(Optional::stream)
                    .anyMatch(r -> r.reply().outcome() != Outcome.MOVED && r.reply().outcome() != Outcome.INVALID);
            if (decided) {
                firstDecision.computeIfAbsent(observed.resource(), r -> new HashMap<>())
                        .merge(observed.record().partition(), observed.now(), (a, b) -> a.isBefore(b) ? a : b);
            }
        });
        Map<String, Observed> staged = new LinkedHashMap<>();
        first.forEach((requestId, observed) -> {
            List<Integer> journey = firstDecision.getOrDefault(observed.resource(), Map.of()).entrySet().stream()
                    .sorted(Map.Entry.comparingByValue()).map(Map.Entry::getKey).toList();
            int stage = Math.max(0, journey.indexOf(observed.record().partition()));
            staged.put(requestId, new Observed(observed.record(), requestId, observed.resource(), observed.now(), stage));
        });
        return staged;
    }

    /** A record's place in its resource's history, as {@link Observed#order()} says it. */
    private static long order(LogIndex.Position position) {
        return ((long) position.stage() << 40) | position.offset();
    }

    /** Whether a reply sends its command on ({@code moved}): an answer, not a decision. */
    private static boolean sentOn(byte[] reply) {
        return ReplyDecoder.decode(reply).map(r -> r.reply().outcome() == Outcome.MOVED).orElse(false);
    }

    private static void checkEveryRequestAnswered(History history, Map<String, Observed> first,
            List<String> violations) {
        for (String requestId : history.sent()) {
            if (!first.containsKey(requestId)) {
                violations.add("request " + requestId + " was acknowledged by the broker but is not in the command log");
            }
        }
        first.forEach((requestId, observed) -> {
            if (history.replies().getOrDefault(requestId, List.of()).isEmpty()) {
                violations.add("request " + requestId + " (first record " + observed.record().position()
                        + ") was never answered");
            }
        });
        history.replies().keySet().stream().filter(requestId -> !first.containsKey(requestId)).sorted()
                .forEach(requestId -> violations.add("request " + requestId
                        + " was answered, but no record of it is in the command log"));
    }

    /** Every decision of one request is the same; a {@code moved} answer decided nothing. */
    private static void checkEachRequestAnsweredOneWay(History history, List<String> violations) {
        history.replies().forEach((requestId, values) -> {
            Set<String> distinct = new LinkedHashSet<>();
            values.stream().filter(v -> !sentOn(v)).forEach(v -> distinct.add(new String(v, StandardCharsets.UTF_8)));
            if (distinct.size() > 1) {
                violations.add("request " + requestId + " was answered " + values.size()
                        + " times with different replies:\n    " + String.join("\n    ", distinct));
            }
        });
    }

    /** A grant's lease publishes the value its acquire gave (a leader's address), and no other. */
    private static void checkGrantsPublishTheirValues(History history, Map<String, Observed> first,
            List<String> violations) {
        first.values().forEach(observed -> {
            if (DECODER.decode(observed.record().key(), observed.record().value()) instanceof ParsedCommand.Valid valid
                    && valid.command() instanceof Command.Acquire acquire) {
                history.replies().getOrDefault(observed.requestId(), List.of()).stream().map(ReplyDecoder::decode)
                        .flatMap(Optional::stream).map(r -> r.reply())
                        .filter(v -> v instanceof Verdict.Acquired a && !a.lease().value().equals(acquire.value()))
                        .findFirst().ifPresent(v -> violations.add("request " + observed.requestId() + " asked for value "
                                + acquire.value() + " but its lease publishes " + ((Verdict.Acquired) v).lease().value()));
            }
        });
    }

    /** The TTL a command asks for: an acquire's or a renew's. */
    private static Optional<Duration> ttlOf(Command command) {
        if (command instanceof Command.Acquire acquire) {
            return Optional.of(acquire.ttl());
        }
        return command instanceof Command.Renew renew ? Optional.of(renew.ttl()) : Optional.empty();
    }

    /**
     * A request's reply, placed where it was decided: its record's log time, or for an acquire
     * that waited in a queue the later instant its turn came (a grant starts its lease then, an
     * owner's second acquire extends the lease it holds then).
     */
    private record Decided(Observed observed, Verdict verdict, Instant at) {

        /** A waiter's grant says how long it waited; the instants a lease names are not log time. */
        boolean waited() {
            return verdict instanceof Verdict.Acquired a && a.waited().isPresent();
        }
    }

    /**
     * Each resource's leases, observed in the order they were decided: a waiter's grant where the
     * resource was handed to it, after what freed it at that instant.
     */
    private static Map<String, LeaseTimeline> timelines(History history, Map<String, Observed> first) {
        LogIndex index = LogIndex.of(history, first.values());
        List<Decided> decided = new ArrayList<>();
        for (Observed observed : first.values()) {
            history.replies().getOrDefault(observed.requestId(), List.of()).stream()
                    .map(ReplyDecoder::decode)
                    .flatMap(Optional::stream)
                    .filter(r -> r.reply().outcome() != Outcome.INVALID && r.reply().outcome() != Outcome.MOVED)
                    .findFirst()
                    .ifPresent(r -> decided.add(new Decided(observed, r.reply(), index.decidedAt(observed, r.reply()))));
        }
        decided.sort(Comparator.comparing(Decided::at).thenComparing(Decided::waited)
                .thenComparingInt(d -> d.observed().record().partition())
                .thenComparingLong(d -> d.observed().order()));
        Map<String, LeaseTimeline> timelines = new TreeMap<>();
        decided.forEach(d -> {
            Optional<Command.Release> release = DECODER.decode(d.observed().record().key(), d.observed().record().value())
                    instanceof ParsedCommand.Valid valid && valid.command() instanceof Command.Release r
                    ? Optional.of(r) : Optional.empty();
            Optional<Share> asked = DECODER.decode(d.observed().record().key(), d.observed().record().value())
                    instanceof ParsedCommand.Valid valid && valid.command() instanceof Command.Acquire acquire
                    ? Optional.of(acquire.share()) : Optional.empty();
            Optional<Duration> ttl = DECODER.decode(d.observed().record().key(), d.observed().record().value())
                    instanceof ParsedCommand.Valid valid ? ttlOf(valid.command()) : Optional.empty();
            timelines.computeIfAbsent(d.observed().resource(), LeaseTimeline::new).observe(d.observed(), d.verdict(),
                    d.waited(), release.map(Command.Release::owner), release.map(Command.Release::fencingToken)
                            .orElse(OptionalLong.empty()), asked, d.at(), ttl,
                    d.verdict() instanceof Verdict.Acquired a ? order(index.decidedBy(d.observed(), a))
                            : d.observed().order());
        });
        return timelines;
    }
}
