package dev.lockstep.history;

import dev.lockstep.core.Command;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Fairness of the wait queues, from the log and the replies alone: on each resource, acquires
 * that waited are granted in the order the log holds them (a later one never gets an older
 * token), and while one still waits nobody else is granted the resource, unless its wait ended
 * first (a {@code wait_expired} at or after its end) or it was cancelled.
 */
final class QueueOrder {

    private static final CommandDecoder DECODER = new CommandDecoder(Limits.defaults());

    /** An acquire of the log and the one reply it got, if any. */
    private record Asked(HistoryChecker.Observed observed, Command.Acquire acquire, Optional<Verdict> verdict) {

        Instant deadline() {
            return observed.now().plus(acquire.maxWait());
        }

        Optional<Verdict.Acquired> acquired() {
            return verdict.filter(Verdict.Acquired.class::isInstance).map(Verdict.Acquired.class::cast);
        }

        long offset() {
            return observed.order();
        }
    }

    /**
     * The acquires of one resource that were granted a new lease: each token's first acquire in the
     * log (a later one with that token extended it: its owner already held it).
     */
    private record Granted(List<Asked> asked) {

        Optional<Verdict.Acquired> granted(Asked one) {
            return one.acquired().filter(a -> asked.stream().filter(other -> other.acquired()
                    .filter(o -> o.lease().fencingToken() == a.lease().fencingToken()).isPresent())
                    .mapToLong(Asked::offset).min().orElse(one.offset()) == one.offset());
        }
    }

    private QueueOrder() {
    }

    /** @param index where in the log replies were decided */
    static List<String> violations(History history, Map<String, HistoryChecker.Observed> first, LogIndex index) {
        Map<String, List<Asked>> byResource = new TreeMap<>();
        first.values().forEach(observed -> {
            if (DECODER.decode(observed.record().key(), observed.record().value()) instanceof ParsedCommand.Valid valid
                    && valid.command() instanceof Command.Acquire acquire) {
                Optional<Verdict> verdict = history.replies().getOrDefault(observed.requestId(), List.of()).stream()
                        .map(ReplyDecoder::decode).flatMap(Optional::stream).map(ReplyDecoder.ReplyMessage::reply)
                        .filter(reply -> reply.outcome() != dev.lockstep.core.Outcome.MOVED).findFirst();
                byResource.computeIfAbsent(acquire.resource(), r -> new ArrayList<>())
                        .add(new Asked(observed, acquire, verdict));
            }
        });
        List<String> violations = new ArrayList<>();
        byResource.forEach((resource, asked) -> {
            asked.sort(Comparator.comparingLong(a -> a.observed().order()));
            Granted granted = new Granted(asked);
            grantedInLogOrder(resource, asked, granted, violations);
            nobodyPassedAWaiter(resource, asked, granted, violations, index);
        });
        return violations;
    }

    /** Among acquires that may wait and were granted a new lease, a later one never got an older token. */
    private static void grantedInLogOrder(String resource, List<Asked> asked, Granted granted,
            List<String> violations) {
        Asked latest = null;
        long latestToken = 0;
        for (Asked next : asked) {
            Optional<Verdict.Acquired> lease = granted.granted(next);
            if (!next.acquire().waits() || lease.isEmpty()) {
                continue;
            }
            long token = lease.get().lease().fencingToken();
            if (latest != null && token < latestToken) {
                violations.add("on " + resource + ", the waiting acquire " + next.observed().requestId() + " at "
                        + next.observed().record().position() + " was granted token " + token
                        + ", before the earlier waiter " + latest.observed().requestId() + " (token " + latestToken
                        + "): granted out of queue order");
            }
            latest = next;
            latestToken = token;
        }
    }

    /**
     * A waiter told its wait ended was still waiting until its end: no other owner's acquire of a
     * later record was granted a new lease before that. Judged in log time, which stands for real
     * time here: a wait lasts at least its {@code wait_ms} of it from its record (a worker keeping
     * time at its ticks ends it no sooner), and a grant came at the log time of its record.
     */
    private static void nobodyPassedAWaiter(String resource, List<Asked> asked, Granted granted,
            List<String> violations, LogIndex index) {
        for (int i = 0; i < asked.size(); i++) {
            Asked waiter = asked.get(i);
            boolean waitEnded = waiter.verdict().filter(Verdict.NotAcquired.class::isInstance)
                    .map(v -> ((Verdict.NotAcquired) v).reason()).flatMap(r -> r)
                    .filter(end -> end == WaitEnd.WAIT_EXPIRED).isPresent();
            if (!waitEnded) {
                continue;
            }
            for (Asked later : asked.subList(i + 1, asked.size())) {
                Optional<Verdict.Acquired> lease = granted.granted(later);
                Instant at = lease.map(a -> index.decidedAt(later.observed(), a)).orElse(Instant.MIN);
                if (lease.isPresent() && !lease.get().lease().isOwnedBy(waiter.acquire().owner())
                        && !at.isBefore(waiter.observed().now()) && at.isBefore(waiter.deadline())) {
                    violations.add("on " + resource + ", " + later.observed().requestId() + " (at "
                            + later.observed().record().position() + ") was granted at "
                            + at + " while " + waiter.observed().requestId()
                            + ", queued before it, still waited (until " + waiter.deadline()
                            + ", then told wait_expired)");
                }
            }
        }
    }
}
