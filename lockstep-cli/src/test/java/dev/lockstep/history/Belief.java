package dev.lockstep.history;

import dev.lockstep.core.Share;
import java.time.Instant;
import java.util.Objects;

/**
 * What one client believed: that it held a lease and could act as its holder, from when it handed
 * the lease to its user until it said the lease was lost or released, or (for {@code exec} and
 * {@code elect}) until the job it ran was dead. Times are the machine's wall clock, which in the
 * tests is the broker's too: the log-append times the leases are made of.
 *
 * @param client which process or client instance believed it
 * @param share what it believed it held: the whole resource, or one of its shared permits
 * @param end how the belief ended: {@code released}, {@code lost}, {@code job-dead}, ...
 */
public record Belief(String client, String resource, String owner, long fencingToken, Share share, Instant from,
        Instant until, String end) {

    public Belief {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(share, "share");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(until, "until");
        Objects.requireNonNull(end, "end");
        if (until.isBefore(from)) {
            throw new IllegalArgumentException("a belief ends after it starts: " + from + " .. " + until);
        }
    }

    boolean overlaps(Belief other) {
        return from.isBefore(other.until) && other.from.isBefore(until);
    }

    @Override
    public String toString() {
        return client + " (owner " + owner + ") believed it held token " + fencingToken + " of " + resource
                + (share.exclusive() ? "" : " (" + share + ")") + " from " + from + " until " + until + " (" + end + ")";
    }
}
