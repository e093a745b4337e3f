package dev.lockstep.core;

import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A resource's latest leases, one per permit, live or ended: what the {@link Arbiter} decides an
 * acquire, renew, release or status by. A lock has at most one.
 *
 * @param leases by permit, each permit at most once
 */
public record Holders(List<Lease> leases) {

    public static final Holders NONE = new Holders(List.of());

    public Holders {
        // A lock's, nearly every resource's: one lease, nothing to sort or compare.
        leases = leases.size() <= 1 ? List.copyOf(leases) : byPermit(leases);
    }

    private static List<Lease> byPermit(List<Lease> leases) {
        List<Lease> sorted = leases.stream().sorted(Comparator.comparingInt(Lease::permit)).toList();
        Set<Integer> permits = new HashSet<>();
        for (Lease lease : sorted) {
            if (!permits.add(lease.permit())) {
                throw new IllegalArgumentException("permit " + lease.permit() + " of " + lease.resource() + " twice");
            }
        }
        return sorted;
    }

    /** One lease's. */
    public static Holders of(Lease lease) {
        return new Holders(List.of(lease));
    }

    /** A lock's: its latest lease, if any. */
    public static Holders of(Optional<Lease> latest) {
        Objects.requireNonNull(latest, "latest");
        return latest.map(Holders::of).orElse(NONE);
    }

    /** The leases live at {@code now}, by permit. */
    public List<Lease> liveAt(Instant now) {
        return leases.stream().filter(lease -> lease.isLiveAt(now)).toList();
    }

    /** The latest lease on {@code permit}, live or ended. */
    public Optional<Lease> atPermit(int permit) {
        return leases.stream().filter(lease -> lease.permit() == permit).findFirst();
    }
}
