package dev.lockstep.engine;

import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * A partition's leases as the {@link PartitionState} holds them: each resource's holders (its
 * latest lease on each permit, live or ended), the live ones by end, and what changed since loading.
 *
 * <p>A resource's leases all have one share: a grant of another share (the holders all ended, or
 * the rules would not grant it) takes the place of the ended leases of the old one, as the
 * store's constraints require.
 */
final class LeaseTable {

    /** By end, then resource and permit; written out, since a partition's every record compares leases with it. */
    private static final Comparator<Lease> BY_END = (a, b) -> {
        int byEnd = a.expiresAt().compareTo(b.expiresAt());
        if (byEnd != 0) {
            return byEnd;
        }
        int byResource = a.resource().compareTo(b.resource());
        return byResource != 0 ? byResource : Integer.compare(a.permit(), b.permit());
    };

    private final Map<String, Holders> byResource = new HashMap<>();
    /**
     * The leases live at the position's clock, by end, the next to expire first; with entries a
     * later lease on their permit replaced or a release removed, left until they come up (cheaper
     * than taking each out of the order): only the very instance the holders keep counts.
     */
    private final PriorityQueue<Lease> live = new PriorityQueue<>(BY_END);
    private final Map<LeaseKey, Lease> changed = new LinkedHashMap<>();
    private final Set<LeaseKey> removed = new LinkedHashSet<>();
    private boolean writesBack = true;

    LeaseTable(Collection<Lease> leases, Instant clock) {
        Map<String, List<Lease>> grouped = new HashMap<>();
        leases.forEach(lease -> grouped.computeIfAbsent(lease.resource(), r -> new ArrayList<>(1)).add(lease));
        grouped.forEach((resource, held) -> byResource.put(resource, new Holders(held)));
        leases.stream().filter(lease -> lease.isLiveAt(clock)).forEach(live::add);
    }

    Holders holders(String resource) {
        return byResource.getOrDefault(resource, Holders.NONE);
    }

    /** Every lease held in memory, live or ended. */
    Collection<Lease> all() {
        List<Lease> all = new ArrayList<>(byResource.size());
        byResource.values().forEach(holders -> all.addAll(holders.leases()));
        return all;
    }

    Collection<Lease> changed() {
        return Collections.unmodifiableCollection(changed.values());
    }

    Collection<LeaseKey> removed() {
        return Collections.unmodifiableCollection(removed);
    }

    void forReplay() {
        writesBack = false;
        clearChanges();
    }

    void clearChanges() {
        changed.clear();
        removed.clear();
    }

    /** The lease on its permit, in place of the one before; a lease of another share in place of all. */
    void put(Lease lease) {
        Holders before = holders(lease.resource());
        List<Lease> kept = new ArrayList<>(before.leases().size() + 1);
        boolean same = false;
        for (Lease held : before.leases()) {
            if (held.permit() == lease.permit()) {
                same = held == lease;
            } else if (held.share().equals(lease.share())) {
                kept.add(held);
            } else {
                forget(held);
            }
        }
        kept.add(lease);
        byResource.put(lease.resource(), kept.size() == 1 ? Holders.of(lease) : new Holders(kept));
        if (!same) {
            live.add(lease);
        }
        if (writesBack) {
            LeaseKey key = LeaseKey.of(lease);
            changed.put(key, lease);
            removed.remove(key);
        }
    }

    /** Forgets a released lease: nothing a later record is decided by depends on it. */
    void remove(Lease lease) {
        Holders before = holders(lease.resource());
        List<Lease> kept = before.leases().stream().filter(held -> held.permit() != lease.permit()).toList();
        if (kept.isEmpty()) {
            byResource.remove(lease.resource());
        } else {
            byResource.put(lease.resource(), new Holders(kept));
        }
        forget(lease);
    }

    private void forget(Lease lease) {
        if (writesBack) {
            LeaseKey key = LeaseKey.of(lease);
            changed.remove(key);
            removed.add(key);
        }
    }

    /** Takes the leases that end at or before {@code now} off the live ones, in the order they end. */
    List<Lease> expireUntil(Instant now) {
        List<Lease> ended = new ArrayList<>();
        while (!live.isEmpty() && !live.peek().isLiveAt(now)) {
            Lease next = live.poll();
            // A lease put twice comes up twice, side by side: it ends once.
            if (current(next) && (ended.isEmpty() || ended.get(ended.size() - 1) != next)) {
                ended.add(next);
            }
        }
        return ended;
    }

    /** Whether the holders keep this very lease. */
    private boolean current(Lease lease) {
        Holders holders = byResource.get(lease.resource());
        return holders != null && holders.atPermit(lease.permit()).filter(held -> held == lease).isPresent();
    }

    /** Forgets the leases that ended at or before {@code seenAfter}. */
    void forgetEndedBy(Instant seenAfter) {
        byResource.replaceAll((resource, holders) -> holders.leases().stream()
                .anyMatch(lease -> !lease.expiresAt().isAfter(seenAfter))
                ? new Holders(holders.leases().stream().filter(lease -> lease.expiresAt().isAfter(seenAfter)).toList())
                : holders);
        byResource.values().removeIf(holders -> holders.leases().isEmpty());
    }
}
