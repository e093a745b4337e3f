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
        leases = leases.stream().sorted(Comparator.comparingInt(Lease::permit)).toList();
        Set<Integer> permits = new HashSet<>();
        for (Lease lease : leases) {
            if (!permits.add(lease.permit())) {
                throw new IllegalArgumentException("permit " + lease.permit() + " of " + lease.resource() + " twice");
            }
        }
    }

    /** A lock's: its latest lease, if any. */
    public static Holders of(Optional<Lease> latest) {
        Objects.requireNonNull(latest, "latest");
        return latest.map(lease -> new Holders(List.of(lease))).orElse(NONE);
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
