package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.DeferredReply;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.EventEntry;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.engine.Waiter;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One batch's view of the store, inside one transaction that holds the partition's progress row
 * lock. Shaped for batches: each method is one statement, whatever the batch size.
 */
public interface PartitionTransaction {

    /** The partition's record, read under a row lock held until the transaction ends; empty if never started. */
    Optional<StoredPartition> partition();

    /**
     * The partition's record, locked as by {@link #partition()}, the entries of those request IDs
     * that were applied on this partition and not swept yet, and, when a guess is given, the
     * leases {@link #leasesForUpdate} and the waiters {@link #waiters} would read for it: one round
     * trip, the lock taken first.
     *
     * @param guess the leases the batch will read if the partition stands where it last stood
     */
    Opening open(Collection<String> requestIds, Optional<LeaseQuery> guess);

    /**
     * What a batch reads first; {@code guessed} and {@code guessedWaiters} hold the leases and the
     * waiters of the guess, when one was given.
     */
    record Opening(Optional<StoredPartition> partition, Map<String, RequestEntry> requests,
            Optional<List<Lease>> guessed, Optional<List<Waiter>> guessedWaiters) {
    }

    /**
     * What a batch reads: the arguments of {@link #leasesForUpdate}, and for {@link #waiters}
     * whether every queue is read.
     *
     * @param everyQueue the batch may end the partition's quarantine, which hands every queue over
     */
    record LeaseQuery(Set<String> resources, Instant endingAfter, Instant endingBy, boolean everyQueue) {
    }

    /**
     * The latest leases of each of {@code resources} that has some, and of each resource with a
     * lease of the partition that ends after {@code endingAfter} and no later than {@code endingBy}
     * (all of its leases: who holds it after that end depends on them); locked for update until the
     * transaction ends. A batch reads its leases once: a read replaces any before it.
     */
    List<Lease> leasesForUpdate(Collection<String> resources, Instant endingAfter, Instant endingBy);

    /** The request entries of the partition applied at or after {@code since} (log time): what a seal carries. */
    Map<String, RequestEntry> requestsSince(Instant since);

    /** The events stored for the records from {@code fromOffset} (inclusive) to {@code toOffset} (exclusive). */
    List<EventEntry> events(long fromOffset, long toOffset);

    /**
     * The waiters a batch may decide: the whole queues of {@code leases}' resources, of the
     * resources whose leases it reads as ending ({@link #leasesForUpdate}) and of those with a
     * waiter whose wait ends no later than its {@code endingBy}; those of {@code requestIds}; and
     * every waiter of the partition when {@code everyQueue}.
     */
    List<Waiter> waiters(LeaseQuery leases, Collection<String> requestIds);

    /** The replies given to waiters by the records from {@code fromOffset} (inclusive) to {@code toOffset} (exclusive). */
    List<DeferredReply> deferredReplies(long fromOffset, long toOffset);

    /** The largest fencing token of any lease row: a partition the database never saw starts above it. */
    long largestToken();

    /**
     * Writes what the batch changed (leases written and removed, request entries replacing older
     * ones, new events, waiters that joined or left, replies given to waiters) and the new position, with the offset below which the worker knows every
     * publication was acknowledged.
     */
    void save(PartitionState state, long acknowledged);

    /**
     * Records the partition's checkpoint at the position just saved, if {@code policy} says one is
     * due (see {@link CheckpointPolicy}), and removes the oldest beyond those kept.
     *
     * @return whether one was taken
     */
    boolean checkpointIfDue(CheckpointPolicy policy);

    /** The offset below which every reply was acknowledged, as last saved. */
    long acknowledgedOffset();

    /** Records a new epoch of the partition (first start, re-created topic, lost records, new settings). */
    void begin(StoredPartition partition, EpochOrigin origin, String reason);
}
