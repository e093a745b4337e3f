package dev.lockstep.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The lock rules, as a pure function: command + the resource's latest leases + now → decision.
 *
 * <p>No I/O, no clock reads, no state of its own: the caller supplies {@code now} (the record's
 * place in its partition's time, {@link Now}: leases live at {@code now.passed()} count, and what
 * starts is dated from {@code now.from()}) and the token a new lease would get, and stores what the decision says to
 * write. That keeps every rule testable without a database and lets a batch be arbitrated in memory.
 *
 * <p>Rules (from the seed API, with fencing tokens and shares added):
 * <ul>
 *   <li>acquire: the owner holds a live lease → extended to {@code now + ttl}, same permit and token,
 *       with the acquire's value
 *       (asked for another share → invalid: one permit per owner per resource); no live lease in
 *       the way → a new lease with the given token (above every earlier one) on the lowest free
 *       permit; otherwise not acquired, with the time until a lease in the way ends. In the way of
 *       an exclusive acquire is every live lease; of a shared one, an exclusive lease, or as many
 *       shared leases as its limit. A shared acquire naming another limit than the live shared
 *       leases' is invalid: the limit is the resource's while it has holders.</li>
 *   <li>renew: the owner's live lease (and matching token, if one is given) →
 *       {@code expires_at = now + ttl}; live leases but none of the owner's, or another token →
 *       forbidden; no live lease → not found (an expired lease is nobody's).</li>
 *   <li>release: like renew, but ends the lease at {@code now}; the token sequence is kept.</li>
 *   <li>status: live leases → locked, listing them; otherwise not found.</li>
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
    public static Decision decide(Command command, Holders holders, Now now, long newToken) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(holders, "holders");
        Objects.requireNonNull(now, "now");
        List<Lease> live = holders.liveAt(now.passed());
        if (command instanceof Command.Acquire acquire) {
            return acquire(acquire, live, now, newToken);
        } else if (command instanceof Command.Renew renew) {
            return renew(renew, live, now);
        } else if (command instanceof Command.Release release) {
            return release(release, live, now);
        } else if (command instanceof Command.Status) {
            return Decision.unchanged(live.isEmpty() ? new Verdict.NotFound() : new Verdict.Locked(live, 0,
                    OptionalInt.empty()));
        }
        throw new IllegalArgumentException("unknown command " + command.getClass());
    }

    /** A lock's rules: the resource's latest lease, if any. */
    public static Decision decide(Command command, Optional<Lease> latest, Instant now, long newToken) {
        return decide(command, Holders.of(latest), Now.at(now), newToken);
    }

    /** The rules at one instant of log time (a partition that keeps log time). */
    public static Decision decide(Command command, Holders holders, Instant now, long newToken) {
        return decide(command, holders, Now.at(now), newToken);
    }

    private static Decision acquire(Command.Acquire cmd, List<Lease> live, Now now, long newToken) {
        Share share = cmd.share();
        Optional<Lease> own = live.stream().filter(lease -> lease.isOwnedBy(cmd.owner())).findFirst();
        Optional<FieldError> mismatch = own.isPresent() ? ownShare(own.get().share(), share) : limitOf(live, share);
        if (mismatch.isPresent()) {
            return Decision.unchanged(new Verdict.Invalid(Problem.invalidCommand(List.of(mismatch.get()))));
        }
        Instant expiry = now.from().plus(cmd.ttl());
        if (own.isPresent()) {
            Lease extended = own.get().withExpiry(expiry).withValue(cmd.value());
            return Decision.changed(new Verdict.Acquired(extended), extended);
        }
        Optional<Duration> blocked = blockedFor(live, share, now.passed());
        if (blocked.isPresent()) {
            return Decision.unchanged(new Verdict.NotAcquired(blocked.get()));
        }
        Lease granted = new Lease(cmd.resource(), cmd.owner(), newToken, now.from(), expiry, lowestFree(live), share,
                cmd.value());
        return Decision.changed(new Verdict.Acquired(granted), granted);
    }

    /** An owner asks for the share it holds again: one permit per owner, in one mode, of one limit. */
    private static Optional<FieldError> ownShare(Share held, Share asked) {
        if (held.mode() != asked.mode()) {
            return Optional.of(new FieldError("mode", "the owner holds this resource " + held.mode().wireName()
                    + "; it must release it before acquiring it " + asked.mode().wireName()));
        }
        return held.equals(asked) ? Optional.empty() : Optional.of(limitDiffers(held.limit(), asked.limit()));
    }

    /** A shared acquire names the limit the live shared leases were granted with. */
    private static Optional<FieldError> limitOf(List<Lease> live, Share asked) {
        return asked.exclusive() ? Optional.empty() : live.stream().map(Lease::share)
                .filter(held -> !held.exclusive() && held.limit() != asked.limit()).findFirst()
                .map(held -> limitDiffers(held.limit(), asked.limit()));
    }

    private static FieldError limitDiffers(int recorded, int asked) {
        return new FieldError("limit", "the resource admits " + recorded + " shared holders while it has holders or "
                + "waiters; this acquire names " + asked);
    }

    /**
     * How long until the live leases in the way of {@code share} leave room: all of them end for an
     * exclusive acquire; the exclusive one, or the first shared one to end when all permits are
     * taken, for a shared one. Empty when none is in the way.
     */
    private static Optional<Duration> blockedFor(List<Lease> live, Share share, Instant now) {
        if (live.isEmpty()) {
            return Optional.empty();
        }
        Comparator<Duration> order = Comparator.naturalOrder();
        if (share.exclusive()) {
            return live.stream().map(lease -> lease.remainingAt(now)).max(order);
        }
        Optional<Lease> exclusive = live.stream().filter(lease -> lease.share().exclusive()).findFirst();
        if (exclusive.isPresent()) {
            return Optional.of(exclusive.get().remainingAt(now));
        }
        return live.size() < share.limit() ? Optional.empty()
                : live.stream().map(lease -> lease.remainingAt(now)).min(order);
    }

    /** The lowest permit no live lease holds: the one a grant takes. */
    private static int lowestFree(List<Lease> live) {
        int permit = 0;
        for (Lease lease : live) {
            if (lease.permit() != permit) {
                break;
            }
            permit++;
        }
        return permit;
    }

    private static Decision renew(Command.Renew cmd, List<Lease> live, Now now) {
        return withHeldLease(live, cmd.owner(), cmd.fencingToken(), current -> {
            Lease renewed = current.withExpiry(now.from().plus(cmd.ttl()));
            return Decision.changed(new Verdict.Renewed(renewed), renewed);
        });
    }

    /** A released lease ends where time is known to have passed: no later record finds it live. */
    private static Decision release(Command.Release cmd, List<Lease> live, Now now) {
        return withHeldLease(live, cmd.owner(), cmd.fencingToken(),
                current -> Decision.changed(new Verdict.Released(), current.withExpiry(now.passed())));
    }

    /**
     * Renew and release act only on a live lease the caller holds. No live lease is not found
     * (an expired lease is nobody's); only others', or another token's, is forbidden.
     */
    private static Decision withHeldLease(List<Lease> live, String owner, OptionalLong fencingToken,
            Function<Lease, Decision> action) {
        if (live.isEmpty()) {
            return Decision.unchanged(new Verdict.NotFound());
        }
        Optional<Lease> own = live.stream().filter(lease -> lease.isOwnedBy(owner)).findFirst();
        if (own.isEmpty() || fencingToken.isPresent() && fencingToken.getAsLong() != own.get().fencingToken()) {
            return Decision.unchanged(new Verdict.Forbidden());
        }
        return action.apply(own.get());
    }
}
