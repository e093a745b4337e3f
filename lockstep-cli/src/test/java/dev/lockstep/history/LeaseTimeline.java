package dev.lockstep.history;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.engine.Timekeeping;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The leases of one resource as the published replies tell them, in log order: each fencing
 * token's grant, the expiry the latest reply set for it, and when it was released. Built
 * from what clients were told, so that a worker which told two owners they hold the lock at
 * once is caught even if the two replies are each plausible on their own.
 *
 * <p>Overlaps are judged by the log and the partition's time (docs/protocol.md, "Time"), which no
 * broker clock moves: a lease is over at a later grant when its owner's release came before that
 * grant's record, or when the grant is dated at or after the lease's expiry (a grant's record has
 * passed every end before the instant it dates from). The leases handed to the belief check run
 * in log time, which stands for real time there: from the log time of the record that decided
 * them for the TTL their command asked, as a client may take it to.
 */
final class LeaseTimeline {

    /** One lease (one fencing token) of the resource. */
    static final class Grant {
        final Lease first;
        final String requestId;
        final LoggedRecord record;
        /** Whether the grant's own reply was seen (not only a renew's of the same token). */
        final boolean granted;
        /** Whether a waiter's reply was seen for it: its grant, decided at its turn. */
        boolean byWaiter;
        /** The log time it was decided. */
        final Instant start;
        /** The place in the resource's history of the record that granted it ({@link LogIndex#decidedBy}, {@link HistoryChecker.Observed#order}). */
        final long grantedAt;
        /** Its expiry as the latest reply named it, in the partition's time. */
        Instant dated;
        /** The offset of the release that ended it. */
        long releasedBy = Long.MAX_VALUE;
        /** The log time its TTL runs out, from the latest reply that set it. */
        Instant expiresAt;
        Instant releasedAt = Instant.MAX;

        Grant(Lease first, String requestId, LoggedRecord record, boolean granted, Instant start, Instant expiresAt,
                long grantedAt) {
            this.first = first;
            this.requestId = requestId;
            this.record = record;
            this.granted = granted;
            this.start = start;
            this.expiresAt = expiresAt;
            this.dated = first.expiresAt();
            this.grantedAt = grantedAt;
        }

        /**
         * Whether it may still be held at {@code later}'s grant: not released before it, not expired
         * by it in the partition's time; and, where brokers' clocks kept real time, not ended by it
         * in log time either (one CI run saw the partition's time alone place a release wrongly,
         * not yet explained: a lease whose log-time end came 0.45 s before the next grant).
         */
        boolean heldAt(Grant later, HistoryChecker.BrokerClocks clocks) {
            return releasedBy > later.grantedAt && later.first.acquiredAt().isBefore(dated)
                    && (clocks == HistoryChecker.BrokerClocks.SKEWED || later.start.isBefore(end()));
        }

        /** A lease runs from its grant to the earliest of its expiry and its release. */
        Instant end() {
            return expiresAt.isBefore(releasedAt) ? expiresAt : releasedAt;
        }

        @Override
        public String toString() {
            return "token " + first.fencingToken() + (first.share().exclusive() ? "" : " permit " + first.permit())
                    + " (owner " + first.owner() + ", granted " + start
                    + " by request " + requestId + " at " + record.position() + ", ends " + end() + ")";
        }
    }

    /** A release a client was told succeeded: by its owner, at its log time and offset (with the token it named, if any). */
    private record Release(String owner, OptionalLong token, Instant at, long offset) {
    }

    /**
     * How much later than a tick's grant a grant by a record between ticks is dated at one
     * partition time (the slack a worker records): a later token may name an earlier instant by this.
     */
    private static final Duration DATING = Timekeeping.DEFAULT_SLACK;

    private final String resource;
    /** A lease: its token, which is its own (every grant has a token of its own, a shared one too). */
    private record Key(long token) {
        static Key of(Lease lease) {
            return new Key(lease.fencingToken());
        }
    }

    private final Map<Key, Grant> byToken = new HashMap<>();
    private final List<Release> releases = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();

    LeaseTimeline(String resource) {
        this.resource = resource;
    }

    /**
     * Feeds the reply a command got. Leases are told apart by token, so the order of the calls
     * matters only for one token's successive expiries (they come in log order); a release is
     * matched to the lease its owner held then once every reply is in, since a waiter's grant is
     * decided by a later record than its own.
     */
    /**
     * @param asked for an acquire, the share it asked for: a lease of another is a violation
     * @param at the log time the reply was decided
     * @param ttl the TTL the command asked for (an acquire's, a renew's)
     * @param decidedBy the offset of the record that decided it (a waiter's grant's, for one)
     */
    void observe(HistoryChecker.Observed applied, Verdict reply, boolean waited, Optional<String> releasedBy,
            OptionalLong token, Optional<Share> asked, Instant at, Optional<Duration> ttl, long decidedBy) {
        if (reply instanceof Verdict.Acquired a) {
            if (asked.isPresent() && !asked.get().equals(a.lease().share())) {
                violations.add(resource + ": request " + applied.requestId() + " at " + applied.record().position()
                        + " asked for " + asked.get() + " and was granted " + a.lease());
            }
            lease(applied, a.lease(), true, waited, at, ttl, decidedBy);
        } else if (reply instanceof Verdict.Renewed r) {
            lease(applied, r.lease(), false, false, at, ttl, decidedBy);
        } else if (reply instanceof Verdict.Locked l) {
            lease(applied, l.lease(), false, false, at, Optional.empty(), decidedBy);
        } else if (reply instanceof Verdict.Released && releasedBy.isPresent()) {
            releases.add(new Release(releasedBy.get(), token, applied.now(), applied.order()));
        }
    }

    /**
     * @param grant whether the reply is an acquire's: the first for a token is its grant
     * @param waited whether it is a waiter's, granted by a later record than its own: then its
     *     grant, which came before every other reply of its token in the log
     */
    private void lease(HistoryChecker.Observed applied, Lease lease, boolean grant, boolean waited, Instant at,
            Optional<Duration> ttl, long decidedBy) {
        // A status reply shows a lease without setting its end: it moves no expiry.
        Optional<Instant> end = ttl.map(at::plus);
        Grant known = byToken.get(Key.of(lease));
        if (known != null && known.first.permit() != lease.permit()) {
            violations.add(resource + ": two grants share a token: " + known + ", and permit " + lease.permit()
                    + " of owner " + lease.owner() + " by request " + applied.requestId() + " at "
                    + applied.record().position());
            return;
        }
        if (known != null && !known.first.acquiredAt().equals(lease.acquiredAt())) {
            violations.add(resource + ": fencing token did not grow: " + known + " was reused for a lease granted "
                    + lease.acquiredAt() + " to owner " + lease.owner() + " by request "
                    + applied.requestId() + " at " + applied.record().position());
            return;
        }
        if (known != null) {
            if (!known.first.owner().equals(lease.owner())) {
                violations.add(resource + ": two owners told they hold one lease: " + known + ", and owner "
                        + lease.owner() + " by request " + applied.requestId() + " at "
                        + applied.record().position() + " (" + applied.now() + ")");
            }
            if (grant && (!known.granted || waited && !known.byWaiter)) {
                // A waiter's grant, decided by a record at the same log time as a renew of it, or
                // its owner's extending acquire, observed first (sorted before waiters' grants at
                // one instant): those came after it in the log, and the expiry they set stands.
                // A status reply seen first names no end in log time: the grant's own then stands.
                Grant granted = new Grant(lease, applied.requestId(), applied.record(), true, at,
                        known.expiresAt.equals(Instant.MAX) ? end.orElse(Instant.MAX) : known.expiresAt, decidedBy);
                granted.dated = known.dated;
                granted.byWaiter = waited;
                byToken.put(Key.of(lease), granted);
                return;
            }
            // A renew, a same-owner re-acquire, or the turn of that owner's next waiter (after the
            // waiter's grant, in queue order) sets the expiry anew, shorter or longer.
            end.ifPresent(e -> known.expiresAt = e);
            known.dated = lease.expiresAt();
            return;
        }
        Grant first = new Grant(lease, applied.requestId(), applied.record(), grant, at, end.orElse(Instant.MAX),
                decidedBy);
        first.byWaiter = waited;
        byToken.put(Key.of(lease), first);
    }

    /** The grants in token order, each release applied to the lease its owner held when it was released. */
    private List<Grant> grants() {
        List<Grant> grants = byToken.values().stream().sorted(Comparator.comparingLong((Grant g) -> g.grantedAt)
                .thenComparingInt(g -> g.first.permit()))
                .toList();
        grants.forEach(grant -> {
            grant.releasedAt = Instant.MAX;
            grant.releasedBy = Long.MAX_VALUE;
        });
        // In log order, each to its owner's latest lease granted before it and not yet released (an
        // owner holds one lease of a resource at a time; at the very record that releases one, its
        // owner may be handed the next from the queue).
        releases.stream().sorted(Comparator.comparingLong(Release::offset)).forEach(release -> grants.stream()
                .filter(grant -> grant.first.owner().equals(release.owner())
                        && (release.token().isEmpty() || release.token().getAsLong() == grant.first.fencingToken())
                        && grant.grantedAt < release.offset() && grant.releasedBy == Long.MAX_VALUE)
                .reduce((earlier, later) -> later).ifPresent(grant -> {
                    grant.releasedBy = release.offset();
                    grant.releasedAt = release.at();
                }));
        return grants;
    }

    /**
     * Overlaps are judged once every reply is in: a later renew may extend an earlier lease. An
     * exclusive lease overlaps no other; shared ones overlap only each other, of one limit, never
     * more of them at once than it.
     */
    List<String> violations(HistoryChecker.BrokerClocks clocks) {
        List<String> all = new ArrayList<>(violations);
        List<Grant> grants = grants();
        List<Grant> live = new ArrayList<>();
        for (int i = 0; i < grants.size(); i++) {
            Grant next = grants.get(i);
            if (i > 0 && next.first.acquiredAt().plus(DATING).isBefore(grants.get(i - 1).first.acquiredAt())) {
                all.add(resource + ": fencing token did not grow: " + grants.get(i - 1) + " was followed by " + next);
                continue;
            }
            live.removeIf(held -> !held.heldAt(next, clocks));
            Share share = next.first.share();
            for (Grant held : live) {
                if (share.exclusive() || held.first.share().exclusive()) {
                    all.add(resource + ": two leases overlap: " + held + " and " + next);
                } else if (!held.first.share().equals(share)) {
                    all.add(resource + ": shared leases of two limits overlap: " + held + " and " + next);
                }
            }
            if (!share.exclusive() && live.size() + 1 > share.limit()) {
                all.add(resource + ": more holders than its limit of " + share.limit() + " at " + next.start + ": " + live
                        + " and " + next);
            }
            live.add(next);
        }
        return all;
    }

    int grantCount() {
        return byToken.size();
    }

    /** Each lease as the replies told it: owner, token, from its grant to its end. */
    List<HistoryChecker.SeenLease> leases() {
        return grants().stream().map(g -> new HistoryChecker.SeenLease(g.first.owner(), g.first.fencingToken(),
                g.start, g.end(), g.first.acquiredAt())).toList();
    }
}
