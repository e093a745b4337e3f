package dev.lockstep.worker;

import dev.lockstep.engine.Layout;
import dev.lockstep.engine.Quarantine;
import dev.lockstep.store.DueHandOver;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PartitionTransaction;
import dev.lockstep.store.StoreException;
import dev.lockstep.store.SweepResult;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/** A database that answers a ping or not, as the test says; nothing else of a store is used where it stands in. */
final class StubStore implements LockStore {

    boolean down;

    @Override
    public <T> T inPartition(PartitionId partition, Function<PartitionTransaction, T> work) {
        throw new UnsupportedOperationException();
    }

    @Override
    public SweepResult sweep(int limit) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean refreshTableStatistics() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void ping() {
        if (down) {
            throw new StoreException("Connection refused", null);
        }
    }

    @Override
    public long liveLeases(String topic) {
        return 0;
    }

    @Override
    public long liveSharedLeases(String topic) {
        return 0;
    }

    @Override
    public Map<Integer, Long> waiters(String topic) {
        asked++;
        if (down) {
            throw new StoreException("Connection refused", null);
        }
        return waiting;
    }

    /** The waiters per partition, as the test says; and how often they were asked for. */
    Map<Integer, Long> waiting = Map.of();
    int asked;

    /** Where leases end, as the test says. */
    Map<Integer, Instant> ending = Map.of();

    /** The quarantined partitions, as the test says. */
    Map<Integer, Quarantine> quarantined = Map.of();

    @Override
    public Map<Integer, Quarantine> quarantines(String topic) {
        if (down) {
            throw new StoreException("Connection refused", null);
        }
        return quarantined;
    }

    /** The partitions where nothing is live, as the test says; every other one may have something (not known). */
    Set<Integer> idle = Set.of();

    @Override
    public Map<Integer, Long> partitionsWithTimeToKeep(String topic, Set<Integer> partitions) {
        if (down) {
            throw new StoreException("Connection refused", null);
        }
        return partitions.stream().filter(p -> !idle.contains(p))
                .collect(Collectors.toMap(p -> p, p -> applied.getOrDefault(p, Long.MAX_VALUE)));
    }

    /** How far each partition was applied, as the test says (every tick, when it says nothing). */
    Map<Integer, Long> applied = Map.of();

    /** The hand-overs due, as the test says. */
    List<DueHandOver> due = List.of();

    @Override
    public List<DueHandOver> handOversDue(String topic, Collection<Integer> partitions) {
        if (down) {
            throw new StoreException("Connection refused", null);
        }
        return due.stream().filter(d -> partitions.contains(d.partition())).toList();
    }

    @Override
    public Map<Integer, Instant> leasesEndingBy(String topic, Collection<Integer> partitions, Instant by) {
        if (down) {
            throw new StoreException("Connection refused", null);
        }
        Map<Integer, Instant> due = new TreeMap<>();
        ending.forEach((partition, end) -> {
            if (partitions.contains(partition) && !end.isAfter(by)) {
                due.put(partition, end);
            }
        });
        return due;
    }

    @Override
    public void close() {
    }

    @Override
    public Map<Integer, Layout> layouts(String topic) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<TopicGrowth> growths(String topic) {
        throw new UnsupportedOperationException();
    }

    @Override
    public TopicGrowth startGrowth(String topic, int from, int to) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void growthFinished(String topic, int from) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<PendingTransfer> transfersDue(String topic, Collection<Integer> partitions) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void transfersSent(String topic, Collection<PendingTransfer> sent) {
        throw new UnsupportedOperationException();
    }
}
