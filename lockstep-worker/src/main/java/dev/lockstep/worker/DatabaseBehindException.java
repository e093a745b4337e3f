package dev.lockstep.worker;

import dev.lockstep.store.PartitionId;

/**
 * A partition's stored position is below one this worker saw the database hold: the database
 * lost commits under a running worker (a backup restored in place, an asynchronous replica
 * promoted). The batch is not applied; the worker positions the partition from the database
 * again and applies the records in between once more, with the same replies and tokens.
 */
final class DatabaseBehindException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final long stored;

    DatabaseBehindException(PartitionId partition, long stored, long floor) {
        super("partition " + partition + " stands at offset " + stored + " in the database, behind offset " + floor
                + " it stood at before (a backup restored in place, or a promoted replica that lost commits?)");
        this.stored = stored;
    }

    /** Where the database says the partition stands. */
    long stored() {
        return stored;
    }
}
