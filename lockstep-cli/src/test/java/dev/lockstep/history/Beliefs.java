package dev.lockstep.history;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The property a user relies on, checked the way Jepsen checks a lock service's clients: no two
 * clients act as holders at once. Each client's {@link Belief} must lie inside the lease the log
 * gave it (its token's grant to its end, as the replies tell it), and no two beliefs of a resource
 * may overlap beside an exclusive one, nor more shared ones than their limit.
 *
 * <p>The clock assumption: a client measures its lease on its own clock, from its send of the
 * command; it is sound while that clock runs no slower than the broker's by more than its safety
 * margin covers. In the tests every process reads one machine's clock, so beliefs are compared with
 * log times directly, to the millisecond (the log's resolution).
 */
final class Beliefs {

    private Beliefs() {
    }

    /**
     * @param clocks whether the brokers' clocks kept real time: log times then stand for it, and a
     *     belief must lie within its lease's log times; a skewed leader's do not, and only what
     *     clocks cannot move is judged (the token was granted, to that owner; beliefs side by side)
     */
    static List<String> violations(Map<String, List<HistoryChecker.SeenLease>> leases, List<Belief> beliefs,
            HistoryChecker.BrokerClocks clocks) {
        List<String> violations = new ArrayList<>();
        beliefs.forEach(belief -> insideItsLease(belief, leases.getOrDefault(belief.resource(), List.of()), clocks)
                .ifPresent(violations::add));
        Map<String, List<Belief>> byResource = new TreeMap<>();
        beliefs.forEach(belief -> byResource.computeIfAbsent(belief.resource(), r -> new ArrayList<>()).add(belief));
        byResource.values().forEach(held -> violations.addAll(atOnce(held)));
        return violations;
    }

    private static Optional<String> insideItsLease(Belief belief, List<HistoryChecker.SeenLease> leases,
            HistoryChecker.BrokerClocks clocks) {
        Optional<HistoryChecker.SeenLease> lease = leases.stream()
                .filter(seen -> seen.fencingToken() == belief.fencingToken()).findFirst();
        if (lease.isEmpty()) {
            return Optional.of(belief + ", but no reply granted that token");
        } else if (!lease.get().owner().equals(belief.owner())) {
            return Optional.of(belief + ", but that token was granted to " + lease.get().owner());
        } else if (clocks == HistoryChecker.BrokerClocks.SKEWED) {
            return Optional.empty();
        } else if (millis(belief.from()).isBefore(lease.get().from())) {
            return Optional.of(belief + ", " + Duration.between(belief.from(), lease.get().from()).toMillis()
                    + " ms before its lease was granted at " + lease.get().from());
        } else if (millis(belief.until()).isAfter(lease.get().until())) {
            return Optional.of(belief + ", " + Duration.between(lease.get().until(), belief.until()).toMillis()
                    + " ms past its lease's end at " + lease.get().until());
        }
        return Optional.empty();
    }

    /**
     * Beside an exclusive belief no other but its own holder's; at most a limit's worth of shared
     * holders at any instant (the most there are at once is the count at one of their starts).
     */
    private static List<String> atOnce(List<Belief> held) {
        List<String> violations = new ArrayList<>();
        List<Belief> sorted = held.stream().sorted(Comparator.comparing(Belief::from)).toList();
        for (int i = 0; i < sorted.size(); i++) {
            Belief one = sorted.get(i);
            for (int j = i + 1; j < sorted.size() && sorted.get(j).from().isBefore(one.until()); j++) {
                Belief other = sorted.get(j);
                if (one.overlaps(other) && (one.share().exclusive() || other.share().exclusive())
                        && !oneHolder(one, other)) {
                    violations.add("two clients acted as holders at once: " + one + "; and " + other);
                }
            }
            if (!one.share().exclusive()) {
                long atItsStart = sorted.stream().filter(other -> !other.share().exclusive())
                        .filter(other -> !other.from().isAfter(one.from()) && other.until().isAfter(one.from()))
                        .map(other -> other.owner() + "#" + other.fencingToken()).distinct().count();
                if (atItsStart > one.share().limit()) {
                    violations.add(atItsStart + " clients acted as shared holders at once, over the limit of "
                            + one.share().limit() + ", when " + one + " began");
                }
            }
        }
        return violations;
    }

    /**
     * Two clients that share an owner and hold one lease (its token) are one holder to lockstep:
     * threads of one process that acquire under one owner are each granted that owner's lease
     * (docs/client.md, owners); each belief must still lie inside it.
     */
    private static boolean oneHolder(Belief one, Belief other) {
        return one.owner().equals(other.owner()) && one.fencingToken() == other.fencingToken();
    }

    private static Instant millis(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }
}
