package dev.lockstep.core;

import java.time.Instant;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Arbitrates a sequence of commands in memory, so that a whole batch can be decided against one
 * read of the leases it touches and written back with one statement.
 *
 * <p>Commands are applied in order, and each sees the effects of the ones before it: an acquire
 * followed by a release of the same resource in one batch behaves exactly as it would one
 * transaction at a time. Pure: no I/O and no clock.
 */
public final class LeaseLedger {

    private final Map<String, Lease> latest;
    private final Map<String, Lease> writes = new LinkedHashMap<>();
    private final long tokenFloor;

    /** @param loaded the stored leases of (at least) every resource the batch will touch */
    public LeaseLedger(Map<String, Lease> loaded) {
        this(loaded, 0);
    }

    /**
     * @param loaded the stored leases of (at least) every resource the batch will touch
     * @param tokenFloor see {@link Arbiter#decide(Command, Optional, Instant, long)}
     */
    public LeaseLedger(Map<String, Lease> loaded, long tokenFloor) {
        this.latest = new HashMap<>(loaded);
        this.tokenFloor = tokenFloor;
    }

    public Decision apply(Command command, Instant now) {
        Decision decision = Arbiter.decide(command, Optional.ofNullable(latest.get(command.resource())), now,
                tokenFloor);
        decision.write().ifPresent(lease -> {
            latest.put(lease.resource(), lease);
            writes.put(lease.resource(), lease);
        });
        return decision;
    }

    /** The final lease of every resource that a command changed, one per resource. */
    public Collection<Lease> writes() {
        return Collections.unmodifiableCollection(writes.values());
    }
}
