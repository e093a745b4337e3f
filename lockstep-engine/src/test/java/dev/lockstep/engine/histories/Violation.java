package dev.lockstep.engine.histories;

/**
 * A broken invariant, named: the shrinker keeps a smaller history only when it breaks the same one.
 */
final class Violation extends AssertionError {

    private static final long serialVersionUID = 1L;

    private final String invariant;

    Violation(String invariant, String detail) {
        super(invariant + ": " + detail);
        this.invariant = invariant;
    }

    String invariant() {
        return invariant;
    }

    /** Fails with {@code invariant} unless {@code holds}. */
    static void check(boolean holds, String invariant, String detail) {
        if (!holds) {
            throw new Violation(invariant, detail);
        }
    }
}
