package dev.lockstep.store;

import dev.lockstep.core.Lease;
import java.util.Collection;
import java.util.Map;

/**
 * One batch's view of the store, inside one transaction that holds the partition's progress row
 * lock. Shaped for batches: each method is one statement, whatever the batch size.
 */
public interface PartitionTransaction {

    /** The partition's progress, read under a row lock that is held until the transaction ends. */
    PartitionProgress progress();

    /** The stored replies of those request IDs that were applied before. */
    Map<String, StoredReply> storedReplies(Collection<String> requestIds);

    /** The latest lease of each resource that has one, locked for update until the transaction ends. */
    Map<String, Lease> leasesForUpdate(Collection<String> resources);

    /**
     * The largest fencing token of any lease row the sweeper removed. Read it after
     * {@link #leasesForUpdate}: a row missing there was removed by a sweep that had already
     * committed, and so had already raised this floor.
     */
    long tokenFloor();

    /** Writes the batch's changed leases, its new replies and the partition's new progress. */
    void save(Collection<Lease> leases, Collection<StoredReply> replies, PartitionProgress progress);
}
