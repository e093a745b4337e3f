package dev.lockstep.store;

/** A partition of the command topic: the unit of ordering, of batching and of progress. */
public record PartitionId(String topic, int partition) {

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
