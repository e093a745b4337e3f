package dev.lockstep.store;

import java.util.Comparator;

/** A partition of the command topic: the unit of ordering, of batching and of progress. */
public record PartitionId(String topic, int partition) {

    /** The order a transaction over several partitions locks them in ({@link LockStore#inPartitions}). */
    public static final Comparator<PartitionId> ORDER =
            Comparator.comparing(PartitionId::topic).thenComparingInt(PartitionId::partition);

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
