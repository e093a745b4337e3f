package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A partition's state at a position, reduced to what a later record can still be decided by: the
 * leases a record may still see (live, or ended less than the request retention ago, when a grant
 * to another owner is a takeover), the request entries still remembered, and the wait queues. Two states that
 * decide every later record alike have equal checkpoints, whatever was swept or compacted.
 *
 * <p>A replay starts from one when the records before it are gone from the log, and compares every
 * checkpoint it passes with the state the log leaves there: a checkpoint is verified while the log
 * still holds the records before it, and trusted once they are gone.
 *
 * <pre>{@code
 * Checkpoint taken = Checkpoint.of(state, settings);           // what the worker recorded
 * PartitionState resumed = taken.state();                      // where a replay goes on from
 * Optional<String> why = Checkpoint.of(replayed, settings).differenceFrom(taken);
 * }</pre>
 *
 * @param position where the state stands: records below {@code position.nextOffset()} made it
 * @param leases sorted by resource
 * @param requests sorted by the log time they were applied, then offset, then request ID
 * @param waiters every waiter of the partition, sorted by offset (the queues' order)
 */
public record Checkpoint(PartitionPosition position, List<Lease> leases, List<RequestEntry> requests,
        List<Waiter> waiters) {

    private static final Comparator<RequestEntry> APPLIED = Comparator.comparing(RequestEntry::appliedAt)
            .thenComparingLong(RequestEntry::offset).thenComparing(RequestEntry::requestId);

    public Checkpoint {
        Objects.requireNonNull(position, "position");
        leases = leases.stream().sorted(Comparator.comparing(Lease::resource).thenComparingInt(Lease::permit)).toList();
        requests = requests.stream().sorted(APPLIED).toList();
        waiters = waiters.stream().sorted(Comparator.comparingLong(Waiter::offset)).toList();
    }

    /** What of {@code state} a later record can be decided by, under {@code settings}; its layout said outright. */
    public static Checkpoint of(PartitionState state, EngineSettings settings) {
        Instant clock = state.position().clock();
        return new Checkpoint(state.position().withLayout(state.position().layoutOr(settings)),
                state.leases().stream().filter(lease -> mayBeSeen(lease, clock, settings)).toList(),
                state.requests().stream().filter(entry -> entry.rememberedAt(clock, settings)).toList(),
                List.copyOf(state.queues().all()));
    }

    /** Whether a record at {@code clock} or later may still be decided by {@code lease}. */
    public static boolean mayBeSeen(Lease lease, Instant clock, EngineSettings settings) {
        return clock.isBefore(lease.expiresAt().plus(settings.requestRetention()));
    }

    /**
     * The same checkpoint with its layout said outright: a partition that never grew routes by
     * {@code settings}' count, whether its record says so or says nothing (one written before growths).
     */
    public Checkpoint routedBy(EngineSettings settings) {
        return new Checkpoint(position.withLayout(position.layoutOr(settings)), leases, requests, waiters);
    }

    /** The state to apply the records from {@code position().nextOffset()} on to. */
    public PartitionState state() {
        // In the order they were applied: the oldest entries are compacted first.
        Map<String, RequestEntry> byId = new LinkedHashMap<>();
        requests.forEach(entry -> byId.put(entry.requestId(), entry));
        return new PartitionState(position, leases, byId, List.of(), waiters, List.of());
    }

    /**
     * How {@code recorded} differs from this checkpoint, the one the log leaves: empty when it is
     * the same; otherwise the position, or up to three leases, request entries or waiters that differ.
     */
    public Optional<String> differenceFrom(Checkpoint recorded) {
        if (!position.equals(recorded.position)) {
            return Optional.of("position " + recorded.position + " where the log leaves " + position);
        }
        List<String> differences = new ArrayList<>();
        compare("lease", byKey(leases, lease -> LeaseKey.of(lease).toString()),
                byKey(recorded.leases, lease -> LeaseKey.of(lease).toString()), differences);
        compare("request", byKey(requests, RequestEntry::requestId), byKey(recorded.requests, RequestEntry::requestId),
                differences);
        compare("waiter", byKey(waiters, Waiter::requestId), byKey(recorded.waiters, Waiter::requestId), differences);
        if (differences.isEmpty()) {
            return Optional.empty();
        }
        String shown = String.join("; ", differences.subList(0, Math.min(3, differences.size())));
        return Optional.of(differences.size() > 3 ? shown + "; and " + (differences.size() - 3) + " more" : shown);
    }

    private static <T> Map<String, T> byKey(List<T> values, Function<T, String> key) {
        Map<String, T> map = new LinkedHashMap<>();
        values.forEach(value -> map.put(key.apply(value), value));
        return map;
    }

    private static <T> void compare(String what, Map<String, T> expected, Map<String, T> found, List<String> out) {
        expected.forEach((key, value) -> {
            T other = found.get(key);
            if (other == null) {
                out.add(what + " " + key + " missing (the log leaves " + value + ")");
            } else if (!other.equals(value)) {
                out.add(what + " " + key + " is " + other + " (the log leaves " + value + ")");
            }
        });
        found.forEach((key, value) -> {
            if (!expected.containsKey(key)) {
                out.add(what + " " + key + " is " + value + " (the log leaves none)");
            }
        });
    }
}
