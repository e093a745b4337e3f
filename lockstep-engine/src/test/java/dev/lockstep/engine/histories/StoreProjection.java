package dev.lockstep.engine.histories;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.DeferredReply;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EventEntry;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.LeaseKey;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.PreparedBatch;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.Waiter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The worker's tables for one partition, in memory: rows kept exactly as the worker writes them
 * back after a batch, and read for a batch exactly as {@code PostgresPartitionTransaction} reads
 * them ({@code LeaseRows.SELECT}, {@code WaiterRows.SELECT}, {@code SELECT_REQUESTS}, the events
 * and waiters' replies of records fetched again). A write the store's statements would refuse
 * (a row changed by nobody else, a permit taken twice) fails the batch here too.
 */
final class StoreProjection {

    private PartitionPosition position;
    private final Map<LeaseKey, Lease> leases = new TreeMap<>(
            (a, b) -> a.resource().equals(b.resource()) ? Integer.compare(a.permit(), b.permit())
                    : a.resource().compareTo(b.resource()));
    private final Map<String, RequestEntry> requests = new HashMap<>();
    private final Map<Long, Waiter> waiters = new TreeMap<>();
    private final Map<Long, Long> dueMarks = new TreeMap<>();
    private final List<EventEntry> events = new ArrayList<>();
    private final List<DeferredReply> deferred = new ArrayList<>();
    private Map<LeaseKey, Long> seenTokens = Map.of();

    /** The rows of a partition at {@code start}. */
    StoreProjection(Checkpoint start) {
        position = start.position();
        start.leases().forEach(lease -> leases.put(LeaseKey.of(lease), lease));
        start.requests().forEach(entry -> requests.put(entry.requestId(), entry));
        start.waiters().forEach(waiter -> waiters.put(waiter.offset(), waiter));
    }

    PartitionPosition position() {
        return position;
    }

    /** The partition's state for a batch of {@code records}, loaded as the worker loads it. */
    PartitionState load(List<Inbound> records, PreparedBatch batch) {
        long first = records.get(0).offset();
        Set<String> resources = batch.resourcesFrom(position.nextOffset());
        Instant endingAfter = position.clock();
        Instant endingBy = batch.reachableFrom(position);
        Set<String> requestIds = batch.requestIds();
        // WaiterRows.SELECT: every queue when the batch may end a quarantine; else the whole queues of
        // the batch's resources, of those with a lease ending within its time and of those with a
        // wait ending by it; and the waiters of its request IDs.
        boolean everyQueue = position.quarantine()
                .filter(quarantine -> quarantine.until().filter(endingBy::isBefore).isEmpty()).isPresent();
        Set<String> ending = new HashSet<>();
        leases.values().stream().filter(lease -> endsWithin(lease, endingAfter, endingBy))
                .forEach(lease -> ending.add(lease.resource()));
        Set<String> waitsEnding = new HashSet<>();
        waiters.values().stream().filter(w -> !w.deadline().isAfter(endingBy)).forEach(w -> waitsEnding.add(w.resource()));
        List<Waiter> loadedWaiters = waiters.values().stream().filter(w -> everyQueue || resources.contains(w.resource())
                || requestIds.contains(w.requestId()) || waitsEnding.contains(w.resource())
                || ending.contains(w.resource())).toList();
        // LeaseRows.SELECT for those resources and the waiters' (BatchProcessor), and every lease of a
        // resource with a lease ending within its time.
        Set<String> leaseResources = new HashSet<>(resources);
        loadedWaiters.forEach(w -> leaseResources.add(w.resource()));
        leaseResources.addAll(ending);
        List<Lease> loadedLeases = leases.values().stream().filter(lease -> leaseResources.contains(lease.resource()))
                .toList();
        Map<LeaseKey, Long> seen = new HashMap<>();
        loadedLeases.forEach(lease -> seen.put(LeaseKey.of(lease), lease.fencingToken()));
        seenTokens = seen;
        Map<String, RequestEntry> loadedRequests = new HashMap<>();
        requestIds.forEach(id -> {
            if (requests.containsKey(id)) {
                loadedRequests.put(id, requests.get(id));
            }
        });
        boolean fetchedAgain = first < position.nextOffset();
        long next = position.nextOffset();
        return new PartitionState(position, loadedLeases, loadedRequests,
                fetchedAgain ? events.stream().filter(e -> e.offset() >= first && e.offset() < next).toList()
                        : List.of(), loadedWaiters,
                fetchedAgain ? deferred.stream().filter(d -> d.offset() >= first && d.offset() < next).toList()
                        : List.of());
    }

    /** Writes back what the batch changed, as {@code PostgresPartitionTransaction.save} does, when it moved. */
    void save(PartitionState state, PartitionPosition loaded) {
        if (!state.moved(loaded)) {
            return;
        }
        for (LeaseKey removed : state.removedLeases()) {
            if (seenTokens.containsKey(removed)) {
                refuseUnless(leases.containsKey(removed) && leases.get(removed).fencingToken() == seenTokens.get(removed),
                        "removing " + removed);
                leases.remove(removed);
            }
        }
        for (Lease lease : state.changedLeases()) {
            LeaseKey key = LeaseKey.of(lease);
            if (seenTokens.containsKey(key)) {
                Lease row = leases.get(key);
                refuseUnless(row != null && row.fencingToken() == seenTokens.get(key)
                        && lease.fencingToken() >= seenTokens.get(key), "updating " + key);
            } else {
                refuseUnless(!leases.containsKey(key), "inserting " + lease + " beside the row " + leases.get(key));
            }
            leases.put(key, lease);
        }
        state.changedRequests().forEach(entry -> requests.put(entry.requestId(), entry));
        events.addAll(state.newEvents());
        for (long left : state.queues().left()) {
            refuseUnless(waiters.remove(left) != null, "removing waiter " + left);
            dueMarks.remove(left);
        }
        for (Waiter joined : state.queues().joined()) {
            refuseUnless(waiters.put(joined.offset(), joined) == null, "inserting waiter " + joined.offset());
        }
        state.queues().due().forEach((waiter, after) -> {
            refuseUnless(waiters.containsKey(waiter), "marking waiter " + waiter + " due");
            dueMarks.put(waiter, after);
        });
        deferred.addAll(state.newDeferredReplies());
        position = state.position();
    }

    /** Every row, as a checkpoint copies them. */
    Checkpoint checkpoint(EngineSettings settings) {
        return Checkpoint.of(new PartitionState(position, List.copyOf(leases.values()), requests, List.of(),
                List.copyOf(waiters.values()), List.of()), settings);
    }

    /** The waiters marked due, by offset: what the ticker appends hand-overs again for. */
    Map<Long, Long> dueMarks() {
        return dueMarks;
    }

    private static boolean endsWithin(Lease lease, Instant after, Instant by) {
        return lease.expiresAt().isAfter(after) && !lease.expiresAt().isAfter(by);
    }

    private static void refuseUnless(boolean holds, String what) {
        if (!holds) {
            throw new IllegalStateException("the store refuses the batch's write: " + what);
        }
    }
}
