package dev.lockstep.core;

import java.util.Objects;

/**
 * What share of a resource an acquire asks for, and a lease holds: the whole of it
 * ({@link #EXCLUSIVE}), or one of its {@code limit} shared permits. Shared holders of one
 * resource all name the same limit: it is the resource's while it has holders or waiters.
 *
 * @param limit how many holders the resource admits: 1 for an exclusive share
 */
public record Share(Mode mode, int limit) {

    /** The most holders a resource admits: a status lists them all in one reply. */
    public static final int MAX_LIMIT = 64;

    /** The whole resource: a lock's lease, as before shares existed. */
    public static final Share EXCLUSIVE = new Share(Mode.EXCLUSIVE, 1);

    public Share {
        Objects.requireNonNull(mode, "mode");
        if (mode == Mode.EXCLUSIVE && limit != 1) {
            throw new IllegalArgumentException("an exclusive share admits one holder, not " + limit);
        }
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("a limit is 1 to " + MAX_LIMIT + ": " + limit);
        }
    }

    /** One of {@code limit} shared permits. */
    public static Share shared(int limit) {
        return new Share(Mode.SHARED, limit);
    }

    public boolean exclusive() {
        return mode == Mode.EXCLUSIVE;
    }
}
