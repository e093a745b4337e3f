package dev.lockstep.engine.histories;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Now;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who holds and who waits, as the published replies and events of the records so far say: the
 * model the invariants are checked against. It knows nothing of the engine's state; what it
 * expects next it asks of the lock rules alone ({@link Arbiter}).
 */
final class Holdings {

    /** An acquire waiting in its resource's queue since {@code queuedAt}, until {@code deadline}. */
    record Waiting(long offset, Command.Acquire acquire, Instant queuedAt, Instant deadline) {

        String requestId() {
            return acquire.requestId();
        }

        String owner() {
            return acquire.owner();
        }

        /** The acquire as the rules take it when its turn comes. */
        Command.Acquire asGranted() {
            return new Command.Acquire(acquire.requestId(), acquire.resource(), acquire.owner(), acquire.ttl(),
                    Duration.ZERO, acquire.share(), acquire.value());
        }
    }

    /** The leases no event has ended yet, by resource and permit (some may have ended in log time). */
    private final Map<String, Map<Integer, Lease>> leases = new TreeMap<>();
    private final Map<String, List<Waiting>> queues = new TreeMap<>();
    private final Map<String, Long> highestToken = new TreeMap<>();
    /** Every resource's tokens granted: a token names one lease of its resource (a record's token may be several resources'). */
    private final Set<String> tokens = new HashSet<>();

    /** The leases live at {@code now}. */
    Holders live(String resource, Instant now) {
        return new Holders(leases.getOrDefault(resource, Map.of()).values().stream()
                .filter(lease -> lease.isLiveAt(now)).toList());
    }

    /** The leases that end by {@code now} and no event ended yet: their expiry is due, in the order leases end. */
    List<Lease> endingBy(Instant now) {
        return leases.values().stream().flatMap(held -> held.values().stream())
                .filter(lease -> !lease.isLiveAt(now))
                .sorted(Comparator.comparing(Lease::expiresAt).thenComparing(Lease::resource)
                        .thenComparingInt(Lease::permit)).toList();
    }

    /** The waits that end by {@code now}, in the order they end. */
    List<Waiting> waitsEndingBy(Instant now) {
        return queues.values().stream().flatMap(List::stream).filter(w -> !w.deadline().isAfter(now))
                .sorted(Comparator.comparing(Waiting::deadline).thenComparingLong(Waiting::offset)).toList();
    }

    List<Waiting> queue(String resource) {
        return queues.getOrDefault(resource, List.of());
    }

    Set<String> queuedResources() {
        return queues.keySet();
    }

    Optional<Waiting> waiting(String requestId) {
        return queues.values().stream().flatMap(List::stream).filter(w -> w.requestId().equals(requestId))
                .findFirst();
    }

    /** The owner's live lease of the resource. */
    Optional<Lease> heldBy(String resource, String owner, Instant now) {
        return live(resource, now).leases().stream().filter(lease -> lease.isOwnedBy(owner)).findFirst();
    }

    /** Where the owner's first waiting acquire stands in the resource's queue, 1 = next. */
    OptionalInt position(String resource, String owner) {
        List<Waiting> queue = queue(resource);
        for (int i = 0; i < queue.size(); i++) {
            if (queue.get(i).owner().equals(owner)) {
                return OptionalInt.of(i + 1);
            }
        }
        return OptionalInt.empty();
    }

    /**
     * Why the rules refuse the acquire outright: another share than the owner holds, or another
     * limit than the resource's shared holders or shared waiters have.
     */
    Optional<String> invalid(Command.Acquire acquire, Now now) {
        if (Arbiter.decide(acquire, live(acquire.resource(), now.passed()), now, Long.MAX_VALUE).verdict()
                instanceof Verdict.Invalid invalid) {
            return Optional.of(invalid.problem().detail());
        }
        Share asked = acquire.share();
        return asked.exclusive() ? Optional.empty() : queue(acquire.resource()).stream()
                .map(w -> w.acquire().share()).filter(s -> !s.exclusive() && s.limit() != asked.limit()).findFirst()
                .map(s -> "a shared waiter of limit " + s.limit() + " waits; this acquire names " + asked.limit());
    }

    /** The lease the rules grant the first waiter now, if they grant it one. */
    Optional<Lease> grantable(Waiting first, Now now) {
        if (heldBy(first.acquire().resource(), first.owner(), now.passed()).isPresent()) {
            return Optional.empty();
        }
        return Arbiter.decide(first.asGranted(), live(first.acquire().resource(), now.passed()), now, Long.MAX_VALUE)
                .verdict() instanceof Verdict.Acquired acquired ? Optional.of(acquired.lease()) : Optional.empty();
    }

    /** A new lease granted: its token must be new and above every token of its resource. */
    void grant(Lease lease, Instant now) {
        Violation.check(tokens.add(lease.resource() + "/" + lease.fencingToken()), Observed.TOKENS, "token " + lease.fencingToken()
                + " granted again, to " + lease.owner() + " of " + lease.resource());
        long highest = highestToken.getOrDefault(lease.resource(), 0L);
        Violation.check(lease.fencingToken() > highest, Observed.TOKENS, "token " + lease.fencingToken() + " of "
                + lease.resource() + " is not above its earlier token " + highest);
        highestToken.put(lease.resource(), lease.fencingToken());
        Lease before = leases.computeIfAbsent(lease.resource(), r -> new TreeMap<>()).get(lease.permit());
        Violation.check(before == null || !before.isLiveAt(now), Observed.EXCLUSION, "permit " + lease.permit()
                + " of " + lease.resource() + " granted to " + lease.owner() + " while " + before + " holds it");
        put(lease);
    }

    /** A live lease's new end (an extension, a renew). */
    void put(Lease lease) {
        leases.computeIfAbsent(lease.resource(), r -> new TreeMap<>()).put(lease.permit(), lease);
    }

    void end(Lease lease) {
        Map<Integer, Lease> held = leases.get(lease.resource());
        if (held != null && held.get(lease.permit()) != null
                && held.get(lease.permit()).fencingToken() == lease.fencingToken()) {
            held.remove(lease.permit());
        }
    }

    /** The lease with that token, no event has ended yet. */
    Optional<Lease> withToken(String resource, long token) {
        return leases.getOrDefault(resource, Map.of()).values().stream().filter(l -> l.fencingToken() == token)
                .findFirst();
    }

    void join(Waiting waiting) {
        queues.computeIfAbsent(waiting.acquire().resource(), r -> new ArrayList<>()).add(waiting);
    }

    void leave(Waiting waiting) {
        List<Waiting> queue = queues.get(waiting.acquire().resource());
        queue.remove(waiting);
        if (queue.isEmpty()) {
            queues.remove(waiting.acquire().resource());
        }
    }

    /** No two exclusive holders, never one beside shared ones, shared ones of one limit and at most that many. */
    void checkExclusion(Instant now) {
        for (String resource : leases.keySet()) {
            List<Lease> live = live(resource, now).leases();
            boolean exclusive = live.stream().anyMatch(lease -> lease.share().exclusive());
            Violation.check(!exclusive || live.size() == 1, Observed.EXCLUSION, resource
                    + " has an exclusive holder beside others: " + live);
            Set<Integer> limits = new HashSet<>();
            live.forEach(lease -> limits.add(lease.share().limit()));
            Violation.check(limits.size() <= 1, Observed.EXCLUSION, resource + " has holders of two limits: " + live);
            Violation.check(live.isEmpty() || live.size() <= live.get(0).share().limit(), Observed.EXCLUSION,
                    resource + " has more holders than its limit: " + live);
        }
    }
}
