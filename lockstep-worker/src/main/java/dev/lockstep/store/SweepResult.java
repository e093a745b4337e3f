package dev.lockstep.store;

/** What one sweep removed. */
public record SweepResult(int leases, int replies, int events) {

    public SweepResult plus(SweepResult other) {
        return new SweepResult(leases + other.leases, replies + other.replies, events + other.events);
    }

    /** Whether a sweep of at most {@code limit} rows per kind left some kind with more to remove. */
    public boolean anyFull(int limit) {
        return leases >= limit || replies >= limit || events >= limit;
    }

    public boolean removedAny() {
        return leases > 0 || replies > 0 || events > 0;
    }
}
