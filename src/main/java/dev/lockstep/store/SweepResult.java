package dev.lockstep.store;

/** What one sweep removed. */
public record SweepResult(int leases, int replies) {

    public boolean removedAny() {
        return leases > 0 || replies > 0;
    }
}
