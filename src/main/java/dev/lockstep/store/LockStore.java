package dev.lockstep.store;

import java.time.Instant;
import java.util.function.Function;

/** Where leases, replies and progress live. One implementation today: {@link PostgresLockStore}. */
public interface LockStore extends AutoCloseable {

    /**
     * Runs {@code work} in one transaction for one partition, and commits it when the work
     * returns. If anything fails, nothing is committed and a {@link StoreException} is thrown;
     * the caller retries the whole batch.
     */
    <T> T inPartition(PartitionId partition, Function<PartitionTransaction, T> work);

    /**
     * Removes up to {@code limit} lease rows that ended before {@code leasesEndedBefore} and up to
     * {@code limit} request-log rows applied before {@code repliesAppliedBefore}, in one short
     * transaction that skips rows a batch has locked. Call it again while it returns full batches.
     */
    SweepResult sweep(Instant leasesEndedBefore, Instant repliesAppliedBefore, int limit);

    @Override
    void close();
}
