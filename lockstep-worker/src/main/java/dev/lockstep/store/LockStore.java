package dev.lockstep.store;

import dev.lockstep.engine.Quarantine;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/** Where leases, request entries and positions live. One implementation today: {@link PostgresLockStore}. */
public interface LockStore extends GrowthStore, AutoCloseable {

    /**
     * Runs {@code work} in one transaction for one partition, and commits it when the work
     * returns. If anything fails, nothing is committed and a {@link StoreException} is thrown;
     * the caller retries the whole batch.
     */
    <T> T inPartition(PartitionId partition, Function<PartitionTransaction, T> work);

    /**
     * Removes up to {@code limit} lease rows that ended before their partition's clock (no later
     * record can observe them) and up to {@code limit} request entries older than their
     * partition's clock minus its request retention, in one short transaction that skips rows a
     * batch has locked. Log time only: when it runs changes no reply. Call it again while it
     * returns full batches.
     */
    SweepResult sweep(int limit);

    /**
     * Analyzes the hot tables whose planner statistics are missing (a new or emptied table that
     * filled) or outgrown (as many changes since as rows then), which autovacuum would do only
     * later; the sweeper asks every few seconds.
     *
     * @return whether every hot table has statistics now, none of them outgrown
     */
    boolean refreshTableStatistics();

    /**
     * Asks the database whether it answers, within a couple of seconds.
     *
     * @throws StoreException when it does not, saying why
     */
    void ping();

    /** The leases live at their partition's clock (log time), over every partition of {@code topic}. */
    long liveLeases(String topic);

    /** Of those, the shared ones: semaphores' permits and readers' leases. */
    long liveSharedLeases(String topic);

    /** The acquires waiting in the queues of each partition of {@code topic}; a partition where none waits is absent. */
    Map<Integer, Long> waiters(String topic);

    /**
     * The partitions of {@code topic} among {@code partitions} where a lease ends, a waiter's wait
     * ends, or a quarantine ends while waiters wait, after the partition's clock (log time) and at
     * or before {@code by}, with the first such end: where a tick would show an end that no record
     * has shown yet.
     */
    Map<Integer, Instant> leasesEndingBy(String topic, Collection<Integer> partitions, Instant by);

    /**
     * The partitions of {@code topic} quarantined at their own clock (log time), with what was
     * lost: records gone from the log before they were applied; a partition not quarantined is absent.
     */
    Map<Integer, Quarantine> quarantines(String topic);

    /**
     * The partitions of {@code topic} among {@code partitions} where something dated (a lease, a
     * quarantine) may still be live at the partition's time: its live-until time is after its
     * clock, or not known; each with its next offset (how far it was applied). Where nothing is,
     * no tick can show an end.
     */
    Map<Integer, Long> partitionsWithTimeToKeep(String topic, Set<Integer> partitions);

    /** The resources of {@code topic} among {@code partitions} whose first waiter waits for a hand-over record. */
    List<DueHandOver> handOversDue(String topic, Collection<Integer> partitions);

    @Override
    void close();
}
