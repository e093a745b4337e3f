package dev.lockstep.worker;

import dev.lockstep.store.PartitionId;

/**
 * One partition's batch failed inside a transaction over several ({@link
 * RecordProcessor#processTogether}): nothing of the transaction was applied, and {@link #getCause()}
 * says why.
 */
final class PartitionFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient PartitionId partition;

    PartitionFailure(PartitionId partition, RuntimeException cause) {
        super("batch of " + partition + " failed: " + cause.getMessage(), cause);
        this.partition = partition;
    }

    PartitionId partition() {
        return partition;
    }

    @Override
    public synchronized RuntimeException getCause() {
        return (RuntimeException) super.getCause();
    }
}
