package dev.lockstep.history;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The leases of one resource as the published replies tell them, in log order: each fencing
 * token's grant, the expiry the latest reply set for it, and when it was released. Built
 * from what clients were told, so that a worker which told two owners they hold the lock at
 * once is caught even if the two replies are each plausible on their own.
 */
final class LeaseTimeline {

    /** One lease (one fencing token) of the resource. */
    static final class Grant {
        final Lease first;
        final String requestId;
        final LoggedRecord record;
        Instant expiresAt;
        Instant releasedAt = Instant.MAX;

        Grant(Lease first, String requestId, LoggedRecord record) {
            this.first = first;
            this.requestId = requestId;
            this.record = record;
            this.expiresAt = first.expiresAt();
        }

        /** A lease runs from its grant to the earliest of its expiry and its release. */
        Instant end() {
            return expiresAt.isBefore(releasedAt) ? expiresAt : releasedAt;
        }

        @Override
        public String toString() {
            return "token " + first.fencingToken() + " (owner " + first.owner() + ", granted " + first.acquiredAt()
                    + " by request " + requestId + " at " + record.position() + ", ends " + end() + ")";
        }
    }

    private final String resource;
    private final List<Grant> grants = new ArrayList<>();
    private final Map<Long, Grant> byToken = new HashMap<>();
    private final List<String> violations = new ArrayList<>();

    LeaseTimeline(String resource) {
        this.resource = resource;
    }

    /** Feeds the reply a command got; calls come in the resource's log order. */
    void observe(HistoryChecker.Observed applied, Verdict reply) {
        if (reply instanceof Verdict.Acquired a) {
            lease(applied, a.lease());
        } else if (reply instanceof Verdict.Renewed r) {
            lease(applied, r.lease());
        } else if (reply instanceof Verdict.Locked l) {
            lease(applied, l.lease());
        } else if (reply instanceof Verdict.Released && !grants.isEmpty()) {
            Grant current = grants.get(grants.size() - 1);
            if (applied.now().isBefore(current.releasedAt)) {
                current.releasedAt = applied.now();
            }
        }
    }

    private void lease(HistoryChecker.Observed applied, Lease lease) {
        Grant known = byToken.get(lease.fencingToken());
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
            // A renew or a same-owner re-acquire sets the expiry anew, shorter or longer.
            known.expiresAt = lease.expiresAt();
            return;
        }
        Grant grant = new Grant(lease, applied.requestId(), applied.record());
        if (!grants.isEmpty()) {
            Grant previous = grants.get(grants.size() - 1);
            if (grant.first.fencingToken() <= previous.first.fencingToken()) {
                violations.add(resource + ": fencing token did not grow: " + previous + " was followed by " + grant);
            }
        }
        grants.add(grant);
        byToken.put(lease.fencingToken(), grant);
    }

    /** Overlaps are judged once every reply is in: a later renew may extend an earlier lease. */
    List<String> violations() {
        List<String> all = new ArrayList<>(violations);
        for (int i = 1; i < grants.size(); i++) {
            Grant previous = grants.get(i - 1);
            Grant next = grants.get(i);
            if (next.first.acquiredAt().isBefore(previous.end())) {
                all.add(resource + ": two leases overlap: " + previous + " and " + next);
            }
        }
        return all;
    }

    int grantCount() {
        return grants.size();
    }

    /** Each lease as the replies told it: owner, token, from its grant to its end. */
    List<HistoryChecker.SeenLease> leases() {
        return grants.stream().map(g -> new HistoryChecker.SeenLease(g.first.owner(), g.first.fencingToken(),
                g.first.acquiredAt(), g.end())).toList();
    }
}
