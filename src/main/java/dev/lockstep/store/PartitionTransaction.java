package dev.lockstep.store;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * One batch's view of the store, inside one transaction that holds the partition's progress row
 * lock. Shaped for batches: each method is one statement, whatever the batch size.
 */
public interface PartitionTransaction {

    /** The partition's record, read under a row lock held until the transaction ends; empty if never started. */
    Optional<StoredPartition> partition();

    /** The entries of those request IDs that were applied on this partition and not swept yet. */
    Map<String, RequestEntry> requests(Collection<String> requestIds);

    /** The latest lease of each resource that has one, locked for update until the transaction ends. */
    Map<String, Lease> leasesForUpdate(Collection<String> resources);

    /** The largest fencing token of any lease row: a partition the database never saw starts above it. */
    long largestToken();

    /**
     * Writes the batch's changed leases, its request entries (replacing older ones) and the new
     * position, with the offset below which the worker knows every reply was acknowledged.
     */
    void save(Collection<Lease> leases, Collection<RequestEntry> requests, PartitionPosition position,
            long acknowledged);

    /** The offset below which every reply was acknowledged, as last saved. */
    long acknowledgedOffset();

    /** Records a new epoch of the partition (first start, re-created topic, lost records, new settings). */
    void begin(StoredPartition partition, String reason);
}
