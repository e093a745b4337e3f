package dev.lockstep.client;

import dev.lockstep.core.Share;
import dev.lockstep.protocol.Limits;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One candidate in a leader election: the group is a resource, the leader holds its exclusive
 * lease, and the term is that lease's fencing token (it grows with every new leader, so a deposed
 * leader's writes are refused where the term is checked). Candidates wait in the resource's queue,
 * so leadership passes in the order they campaigned, at the record that ended the last term.
 *
 * <p>The leader's lease carries a value (its address, or its candidate ID when none is given)
 * that observers read with a status or from the events topic; when it ends and no candidate takes
 * over, the events topic says {@code vacant} (docs/protocol.md, "Leader election").
 *
 * <pre>{@code
 * try (LeaderElection election = LeaderElection.of(client, "billing-scheduler", "host-a", Duration.ofSeconds(15),
 *         Optional.of("10.0.0.7:8080"), listener)) {
 *     election.campaign();                 // returns at once; the listener hears of each term
 *     ...
 * }                                        // resigns: releases the lease, or leaves the queue
 * }</pre>
 *
 * <p>The listener is called one call at a time per election, in the order the election changed,
 * on a thread of the common pool; {@link #resign()} completes once it was told. An exception it throws is logged and changes nothing: the candidate leads, and
 * campaigns again after losing, as if it had returned. Nothing starts before {@link #campaign()}.
 */
public final class LeaderElection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);
    private static final Duration AFTER_FAILURE = Duration.ofSeconds(1);

    /** One term of this candidate's leadership. */
    public record Leadership(String group, String candidate, long term, Optional<String> value, Instant expiresAt) {
    }

    /** Hears when this candidate becomes leader, and when it stops being leader. */
    public interface Listener {

        void gained(Leadership leadership);

        /** @param why {@link LeaseLost.Reason#RESIGNED} when this candidate resigned */
        void lost(Leadership leadership, LeaseLost.Reason why);
    }

    private final LockClient client;
    private final String group;
    private final String candidate;
    private final Duration ttl;
    private final Optional<String> value;
    private final Listener listener;
    private boolean campaigning;
    private AcquireAttempts attempt;
    private volatile HeldLease held;
    private CompletableFuture<Leadership> nextTerm = new CompletableFuture<>();
    /** The listener's calls, one after the other in the order the election changed: each waits for the one before. */
    private CompletableFuture<Void> told = CompletableFuture.completedFuture(null);

    private LeaderElection(LockClient client, String group, String candidate, Duration ttl, Optional<String> value,
            Listener listener) {
        this.client = client;
        this.group = group;
        this.candidate = candidate;
        this.ttl = ttl;
        this.value = value;
        this.listener = listener;
    }

    /**
     * @param ttl the leader's lease: a leader that stops renewing (it died, or lost its connection)
     *     is followed by the next candidate this long after its last renewal at the latest
     * @param value what the leader publishes, at most {@link Limits#MAX_LEASE_VALUE_CHARS}
     *     characters; empty publishes the candidate ID
     */
    public static LeaderElection of(LockClient client, String group, String candidate, Duration ttl,
            Optional<String> value, Listener listener) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(listener, "listener");
        return new LeaderElection(client, group, candidate, ttl, Optional.of(value.orElse(candidate)), listener);
    }

    public String group() {
        return group;
    }

    public String candidate() {
        return candidate;
    }

    /**
     * Starts campaigning, if this candidate is not already: it joins the group's queue, and
     * campaigns again after each term it loses, until it resigns.
     *
     * @return completes when this candidate next becomes leader and its listener was told (at once
     *     when it leads now); fails with {@link java.util.concurrent.CancellationException} when it
     *     resigns first, and with {@link LockClientException} when its client closes first
     */
    public synchronized CompletableFuture<Leadership> campaign() {
        Optional<Leadership> now = leadership();
        if (now.isPresent()) {
            return CompletableFuture.completedFuture(now.get());
        }
        // Taken before entering: a client closed ends the campaign within enter(), and this term with it.
        CompletableFuture<Leadership> next = nextTerm;
        if (!campaigning) {
            campaigning = true;
            enter();
        }
        return next.copy();
    }

    /** Whether this candidate leads: it holds the group's lease and has not learnt that it lost it. */
    public boolean isLeader() {
        HeldLease lease = held;
        return lease != null && !lease.isLost();
    }

    /** This candidate's term, while it leads. */
    public Optional<Leadership> leadership() {
        HeldLease lease = held;
        return lease == null || lease.isLost() ? Optional.empty() : Optional.of(leadership(lease));
    }

    /**
     * Until when this candidate may act as leader in {@code term}: its lease's local validity end
     * ({@link HeldLease#validUntil()}), while it leads in that term; empty once it does not.
     */
    public Optional<MonotonicInstant> validUntil(long term) {
        HeldLease lease = held;
        return lease == null || lease.isLost() || lease.fencingToken() != term ? Optional.empty()
                : Optional.of(lease.validUntil());
    }

    /**
     * Stops campaigning: a leader releases its lease (the next candidate leads at once), a waiting
     * candidate leaves the queue. Completes when the broker has the release or the cancellation,
     * and a leader's listener was told its term ended.
     */
    public CompletableFuture<Void> resign() {
        HeldLease resigned;
        CompletableFuture<Void> left;
        synchronized (this) {
            campaigning = false;
            left = attempt == null ? CompletableFuture.completedFuture(null) : attempt.abandon();
            attempt = null;
            resigned = held;
            held = null;
            nextTerm.cancel(false);
            nextTerm = new CompletableFuture<>();
            if (resigned != null) {
                // Its term ends here: resigned, or lost before (a validity that ran out unnoticed) and
                // not told yet, since held was this lease until now.
                LeaseLost.Reason why = resigned.isLost() ? resigned.lost().join().reason() : LeaseLost.Reason.RESIGNED;
                tell(() -> listener.lost(leadership(resigned), why));
            }
        }
        return resigned == null ? left : CompletableFuture.allOf(left, resigned.closeAsync(), told);
    }

    /** Resigns, and waits until the broker has the release or the cancellation. */
    @Override
    public void close() {
        resign().join();
    }

    /** Joins the group's queue for as long as one wait may last; a wait that ended joins again. */
    private synchronized void enter() {
        if (!campaigning) {
            return;
        }
        AcquireAttempts entered = new AcquireAttempts(client, group, candidate, ttl, Share.EXCLUSIVE, value,
                client.clock().instant().plus(Limits.MAX_WAIT));
        attempt = entered;
        entered.start().whenComplete((lease, error) -> {
            if (error != null) {
                LOG.warn("campaigning for {} failed, again in {}: {}", group, AFTER_FAILURE, error.getMessage());
                client.after(AFTER_FAILURE).whenComplete((ignored, closed) -> {
                    if (closed == null) {
                        enter();
                    } else {
                        ended(closed);
                    }
                });
            } else if (lease.isPresent()) {
                elected(entered, lease.get());
            } else {
                enter();
            }
        });
    }

    /** The client closed while this candidate campaigned: it campaigns no more, and says why. */
    private synchronized void ended(Throwable why) {
        campaigning = false;
        attempt = null;
        nextTerm.completeExceptionally(why);
        nextTerm = new CompletableFuture<>();
    }

    private void elected(AcquireAttempts entered, HeldLease lease) {
        CompletableFuture<Leadership> waiting;
        CompletableFuture<Void> toldGain;
        synchronized (this) {
            if (attempt != entered) {
                // Resigned meanwhile, after this grant came: nobody is to lead on it.
                lease.closeAsync();
                return;
            }
            attempt = null;
            held = lease;
            waiting = nextTerm;
            nextTerm = new CompletableFuture<>();
            Leadership term = leadership(lease);
            LOG.info("{} leads {} in term {}", candidate, group, term.term());
            tell(() -> listener.gained(term));
            toldGain = told;
        }
        // campaign() completes once the listener was told: a caller finds it told.
        toldGain.whenComplete((ignored, failed) -> waiting.complete(leadership(lease)));
        lease.lost().thenAccept(lost -> deposed(lease, lost.reason()));
    }

    private void deposed(HeldLease lease, LeaseLost.Reason why) {
        synchronized (this) {
            if (held != lease) {
                return;
            }
            held = null;
            LOG.warn("{} no longer leads {} (term {}): {}", candidate, group, lease.fencingToken(), why);
            tell(() -> listener.lost(leadership(lease), why));
        }
        enter();
    }

    /**
     * Calls the listener, after its calls before (queued under this election's lock, in the order
     * the election changed, so a resignation is never told before the term it ends), off the
     * client's threads (the common pool: a call queued as the client closes is still made). Its
     * exception is its own bug: logged, it changes nothing in the election (the candidate leads
     * while it holds the lease and campaigns again when it loses it), as an exception thrown back
     * into the client's threads would silently stop both.
     */
    private void tell(Runnable call) {
        told = told.thenRunAsync(() -> {
            try {
                call.run();
            } catch (RuntimeException e) {
                LOG.error("the listener of {} in {} threw; the candidate goes on as the election says", candidate,
                        group, e);
            }
        });
    }

    private Leadership leadership(HeldLease lease) {
        return new Leadership(group, candidate, lease.fencingToken(), lease.lease().value(), lease.expiresAt());
    }
}
