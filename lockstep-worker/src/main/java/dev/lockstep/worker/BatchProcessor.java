package dev.lockstep.worker;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.PreparedBatch;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.engine.Waiter;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.CheckpointPolicy;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PartitionTransaction.LeaseQuery;
import dev.lockstep.store.PartitionTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the records of one partition from one poll in one transaction: loads the part of the
 * partition's state the records touch, runs the {@link PartitionMachine} over them, and writes
 * back what changed.
 *
 * <p>Exactly-once application rests on the partition's progress row: it is locked first, and
 * records below its next offset were applied already, by this worker or another; the machine
 * answers them as they were answered. The row also names the topic incarnation and the settings
 * it follows: a batch for another incarnation, or under other settings, is refused whole.
 */
final class BatchProcessor implements RecordProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(BatchProcessor.class);
    /** Later than any lease ends: a query up to it reads them all. */
    private static final Instant EVERYTHING = Instant.parse("9999-12-31T00:00:00Z");

    private final LockStore store;
    private final PartitionMachine machine;
    private final Supplier<Optional<String>> topicId;
    private final ToLongFunction<PartitionId> acknowledged;
    private final CheckpointPolicy checkpoints;
    private final WorkerMetrics metrics;
    /** Each partition's position after its last batch here (one batch per partition at a time, on any apply thread). */
    private final Map<PartitionId, PartitionPosition> lastPositions = new ConcurrentHashMap<>();

    /**
     * @param topicId the command topic's ID as the worker last saw it; empty when it is not checked
     * @param acknowledged the offset below which the broker acknowledged every reply of the partition
     * @param checkpoints when a batch also records its partition's checkpoint
     */
    BatchProcessor(LockStore store, PartitionMachine machine, Supplier<Optional<String>> topicId,
            ToLongFunction<PartitionId> acknowledged, CheckpointPolicy checkpoints, WorkerMetrics metrics) {
        this.store = store;
        this.machine = machine;
        this.topicId = topicId;
        this.acknowledged = acknowledged;
        this.checkpoints = checkpoints;
        this.metrics = metrics;
    }

    @Override
    public List<Outbound> process(PartitionId partition, List<Inbound> records, long floor) {
        long start = System.nanoTime();
        List<Outbound> out = store.inPartition(partition, tx -> apply(partition, records, floor, tx));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        metrics.batch(records.size(), took);
        return out;
    }

    private List<Outbound> apply(PartitionId partition, List<Inbound> records, long floor, PartitionTransaction tx) {
        long decoding = System.nanoTime();
        PreparedBatch batch = machine.prepare(records);
        metrics.decoded(Duration.ofNanos(System.nanoTime() - decoding));
        // Where the partition stood after its last batch here is where it almost always stands:
        // its leases are read with the position, and read again only if it moved meanwhile.
        Optional<LeaseQuery> guess = Optional.ofNullable(lastPositions.get(partition)).map(at -> leaseQuery(batch, at));
        PartitionTransaction.Opening opening = tx.open(batch.requestIds(), guess);
        StoredPartition stored = opening.partition().orElseThrow(() -> new IllegalStateException(
                "partition " + partition + " was never started: a worker positions it when it is assigned"));
        check(partition, stored);
        PartitionPosition loaded = stored.position();
        if (loaded.nextOffset() < floor) {
            // Applied on from here, the records between would be skipped: what they granted, lost.
            throw new DatabaseBehindException(partition, loaded.nextOffset(), floor);
        }
        long first = records.get(0).offset();
        LeaseQuery touched = leaseQuery(batch, loaded);
        // The queues the batch may decide (and the waiters of its request IDs), and then the leases
        // of their resources too: a waiter whose wait ends is told how long the holder has left.
        // Read with the position when the guess was right, as the leases are: no round trip of their own.
        List<Waiter> waiters = guess.equals(Optional.of(touched)) ? opening.guessedWaiters().orElseThrow()
                : tx.waiters(touched, batch.requestIds());
        Set<String> resources = new HashSet<>(touched.resources());
        waiters.forEach(waiter -> resources.add(waiter.resource()));
        LeaseQuery needed = new LeaseQuery(resources, touched.endingAfter(), touched.endingBy(), touched.everyQueue());
        List<Lease> leases = guess.equals(Optional.of(needed)) ? opening.guessed().orElseThrow()
                : tx.leasesForUpdate(needed.resources(), needed.endingAfter(), needed.endingBy());
        boolean fetchedAgain = first < loaded.nextOffset();
        Map<String, RequestEntry> requests = opening.requests();
        if (batch.regrows(loaded.nextOffset())) {
            // A seal carries the request IDs applied lately to the resources that leave: all of them are read.
            requests = new HashMap<>(tx.requestsSince(loaded.clock().minus(EngineSettings.MIN_REQUEST_RETENTION)));
            requests.putAll(opening.requests());
        }
        PartitionState state = new PartitionState(loaded, leases, requests,
                fetchedAgain ? tx.events(first, loaded.nextOffset()) : List.of(), waiters,
                fetchedAgain ? tx.deferredReplies(first, loaded.nextOffset()) : List.of());
        List<Outbound> out = batch.applyTo(state);
        out.forEach(result -> {
            if (result instanceof Outbound.DeadLetter dead) {
                LOG.warn("dead-lettering {}: {}", dead.source().position(), dead.reason());
            }
        });
        lastPositions.put(partition, state.position());
        if (state.moved(loaded)) {
            tx.save(state, acknowledged.applyAsLong(partition));
            if (tx.checkpointIfDue(checkpoints)) {
                LOG.info("checkpoint of {} recorded at offset {} (log time {})", partition,
                        state.position().nextOffset(), state.position().clock());
            }
        }
        return out;
    }

    /**
     * The leases a batch reads from {@code position}: those its records touch, and those ending
     * within the time it may reach; and every queue when that time may reach the end of the
     * partition's quarantine (not yet fixed, or fixed within it). All of them for a growth's seal or taken.
     */
    private static LeaseQuery leaseQuery(PreparedBatch batch, PartitionPosition position) {
        if (batch.regrows(position.nextOffset())) {
            // A seal carries off every resource that leaves; a taken names every queue that arrived.
            return new LeaseQuery(batch.resourcesFrom(position.nextOffset()), Instant.EPOCH, EVERYTHING, true);
        }
        Instant latest = batch.reachableFrom(position);
        boolean quarantineMayEnd = position.quarantine()
                .filter(quarantine -> quarantine.until().filter(latest::isBefore).isEmpty()).isPresent();
        return new LeaseQuery(batch.resourcesFrom(position.nextOffset()), position.clock(), latest, quarantineMayEnd);
    }

    private void check(PartitionId partition, StoredPartition stored) {
        Optional<String> current = topicId.get();
        if (current.isPresent() && !stored.topicId().equals(current)) {
            throw new IllegalStateException("partition " + partition + " follows topic ID "
                    + stored.topicId().orElse("(none)") + " but the command topic now has ID " + current.get()
                    + "; the worker positions it again");
        }
        EngineSettings mine = machine.settings();
        Optional<EngineSettings> recorded = stored.settings();
        if (recorded.isPresent() && !mine.differencesFrom(recorded.get()).isEmpty()) {
            throw new WorkerStartException(WorkerStartException.Kind.SETTINGS_DIFFER, "partition " + partition
                    + " is now decided under other settings (" + String.join("; ", mine.differencesFrom(recorded.get()))
                    + "), recorded by another worker; this worker stops rather than decide by its own");
        }
    }
}
