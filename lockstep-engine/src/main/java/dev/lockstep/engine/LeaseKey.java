package dev.lockstep.engine;

import dev.lockstep.core.Lease;

/** One permit of one resource: where a lease is kept (a lock has only permit 0). */
public record LeaseKey(String resource, int permit) {

    public static LeaseKey of(Lease lease) {
        return new LeaseKey(lease.resource(), lease.permit());
    }

    @Override
    public String toString() {
        return permit == 0 ? resource : resource + "#" + permit;
    }
}
