package dev.lockstep.store;

import java.util.function.Function;

/** Where leases, replies and progress live. One implementation today: {@link PostgresLockStore}. */
public interface LockStore extends AutoCloseable {

    /**
     * Runs {@code work} in one transaction for one partition, and commits it when the work
     * returns. If anything fails, nothing is committed and a {@link StoreException} is thrown;
     * the caller retries the whole batch.
     */
    <T> T inPartition(PartitionId partition, Function<PartitionTransaction, T> work);

    @Override
    void close();
}
