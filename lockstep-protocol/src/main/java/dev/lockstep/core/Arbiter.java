package dev.lockstep.core;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The lock rules, as a pure function: command + the resource's latest lease + now → decision.
 *
 * <p>No I/O, no clock reads, no state of its own: the caller supplies {@code now} (the broker's
 * log-append time) and the token a new lease would get, and stores what the decision says to
 * write. That keeps every rule testable without a database and lets a batch be arbitrated in memory.
 *
 * <p>Rules (from the seed API, with fencing tokens added):
 * <ul>
 *   <li>acquire: no live lease → a new lease with the given token (above every earlier one); live lease of
 *       the same owner → extended to {@code now + ttl}, same token; live lease of another owner →
 *       not acquired, with the time until it ends.</li>
 *   <li>renew: live lease of the same owner (and matching token, if one is given) →
 *       {@code expires_at = now + ttl}; another owner or token → forbidden; no live lease →
 *       not found (an expired lease is nobody's).</li>
 *   <li>release: like renew, but ends the lease at {@code now}; the token sequence is kept.</li>
 *   <li>status: live lease → locked; otherwise not found.</li>
 * </ul>
 */
public final class Arbiter {

    private Arbiter() {
    }

    /**
     * @param newToken the fencing token a lease granted by this command gets: the caller derives it
     *     from the command's position in the log, so it exceeds every token issued before on the
     *     resource (see {@code PartitionPosition#tokenAt}) and applying the log again yields it again
     */
    public static Decision decide(Command command, Optional<Lease> latest, Instant now, long newToken) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(latest, "latest");
        Objects.requireNonNull(now, "now");
        Optional<Lease> live = latest.filter(lease -> lease.isLiveAt(now));
        if (command instanceof Command.Acquire acquire) {
            return acquire(acquire, live, now, newToken);
        } else if (command instanceof Command.Renew renew) {
            return renew(renew, live, now);
        } else if (command instanceof Command.Release release) {
            return release(release, live, now);
        } else if (command instanceof Command.Status) {
            return Decision.unchanged(live.<Verdict>map(Verdict.Locked::new).orElseGet(Verdict.NotFound::new));
        }
        throw new IllegalArgumentException("unknown command " + command.getClass());
    }

    private static Decision acquire(Command.Acquire cmd, Optional<Lease> live, Instant now, long newToken) {
        Instant expiry = now.plus(cmd.ttl());
        if (live.isPresent()) {
            Lease current = live.get();
            if (!current.isOwnedBy(cmd.owner())) {
                return Decision.unchanged(new Verdict.NotAcquired(current.remainingAt(now)));
            }
            Lease extended = current.withExpiry(expiry);
            return Decision.changed(new Verdict.Acquired(extended), extended);
        }
        Lease granted = new Lease(cmd.resource(), cmd.owner(), newToken, now, expiry);
        return Decision.changed(new Verdict.Acquired(granted), granted);
    }

    private static Decision renew(Command.Renew cmd, Optional<Lease> live, Instant now) {
        return withHeldLease(live, cmd.owner(), cmd.fencingToken(), current -> {
            Lease renewed = current.withExpiry(now.plus(cmd.ttl()));
            return Decision.changed(new Verdict.Renewed(renewed), renewed);
        });
    }

    private static Decision release(Command.Release cmd, Optional<Lease> live, Instant now) {
        return withHeldLease(live, cmd.owner(), cmd.fencingToken(),
                current -> Decision.changed(new Verdict.Released(), current.withExpiry(now)));
    }

    /**
     * Renew and release act only on a live lease the caller holds. No live lease is not found
     * (an expired lease is nobody's); another owner's, or another token's, is forbidden.
     */
    private static Decision withHeldLease(Optional<Lease> live, String owner, OptionalLong fencingToken,
            Function<Lease, Decision> action) {
        if (live.isEmpty()) {
            return Decision.unchanged(new Verdict.NotFound());
        }
        if (!holds(live.get(), owner, fencingToken)) {
            return Decision.unchanged(new Verdict.Forbidden());
        }
        return action.apply(live.get());
    }

    private static boolean holds(Lease lease, String owner, OptionalLong fencingToken) {
        return lease.isOwnedBy(owner)
                && (fencingToken.isEmpty() || fencingToken.getAsLong() == lease.fencingToken());
    }
}
