package dev.lockstep.engine;

import dev.lockstep.core.Holders;
import dev.lockstep.core.Lease;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One partition's state as the {@link PartitionMachine} sees it: its position, the latest lease of
 * each resource, the request IDs it remembers and the events not yet known to be published; with
 * what changed since it was loaded.
 *
 * <p>The worker loads only what one batch may decide (the position, the leases and queues of the
 * batch's resources and of those whose leases or waits end within the batch's log time, the
 * entries of its request IDs, the events of records fetched again) and writes back what changed; a replay keeps the whole
 * partition in memory. Both run the same machine over the same type, which is what makes the
 * replay the worker's exact model.
 */
public final class PartitionState {

    private PartitionPosition position;
    private final LeaseTable leases;
    private final Map<String, RequestEntry> requests;
    private final Map<Long, List<EventEntry>> events = new HashMap<>();
    private final Map<String, RequestEntry> changedRequests = new LinkedHashMap<>();
    private final List<EventEntry> newEvents = new ArrayList<>();
    private final WaitQueues queues;
    private final Map<Long, List<DeferredReply>> deferred = new HashMap<>();
    private final List<DeferredReply> newDeferred = new ArrayList<>();
    private final List<Outbound.Transfer> newTransfers = new ArrayList<>(0);
    private boolean writesBack = true;
    private final StoredReply.Slab replies = new StoredReply.Slab();
    private Optional<Instant> datedUntil = Optional.empty();

    /**
     * @param leases the latest leases of (at least) every resource the records will touch, and of
     *     every resource with a lease that ends within their log time (all of its leases: who holds
     *     it after that end depends on them)
     * @param requests the entries of (at least) every request ID the records carry
     * @param events the events of (at least) every record below the position that will be fetched again
     */
    public PartitionState(PartitionPosition position, Collection<Lease> leases, Map<String, RequestEntry> requests,
            Collection<EventEntry> events) {
        this(position, leases, requests, events, List.of(), List.of());
    }

    /**
     * @param waiters (at least) the whole queues of every resource the records will touch, of every
     *     lease that ends within their log time and of every waiter whose wait ends within it (the
     *     next in line may be granted then); the waiters whose request IDs they carry; and every
     *     queue when their log time may end the partition's quarantine
     * @param deferred the deferred replies of (at least) every record below the position that will be fetched again
     */
    public PartitionState(PartitionPosition position, Collection<Lease> leases, Map<String, RequestEntry> requests,
            Collection<EventEntry> events, Collection<Waiter> waiters, Collection<DeferredReply> deferred) {
        this.position = position;
        this.queues = new WaitQueues(waiters);
        deferred.forEach(d -> this.deferred.computeIfAbsent(d.offset(), o -> new ArrayList<>()).add(d));
        this.deferred.values().forEach(list -> list.sort(Comparator.comparingInt(DeferredReply::index)));
        this.leases = new LeaseTable(leases, position.clock());
        this.requests = new LinkedHashMap<>(requests);
        events.forEach(e -> this.events.computeIfAbsent(e.offset(), o -> new ArrayList<>()).add(e));
        this.events.values().forEach(list -> list.sort(Comparator.comparingInt(EventEntry::index)));
    }

    public static PartitionState empty(PartitionPosition position) {
        return new PartitionState(position, List.of(), Map.of(), List.of());
    }

    /**
     * From now on the state records nothing of what changed and keeps no event to publish again:
     * for a replay, which writes nothing back and fetches no record twice. What the machine decides
     * does not change; {@link #changedLeases()}, {@link #removedLeases()}, {@link #changedRequests()}
     * and {@link #newEvents()} stay empty. The replies of the request entries it goes on to hold
     * are packed into large arrays ({@link StoredReply}).
     */
    public void forReplay() {
        writesBack = false;
        queues.forReplay();
        deferred.clear();
        newDeferred.clear();
        events.clear();
        leases.forReplay();
        changedRequests.clear();
        newEvents.clear();
    }

    public PartitionPosition position() {
        return position;
    }

    /** A lock's lease: the resource's latest on its first permit, live or ended. */
    public Optional<Lease> lease(String resource) {
        return leases.holders(resource).atPermit(0);
    }

    /** The resource's latest leases, one per permit, live or ended. */
    public Holders holders(String resource) {
        return leases.holders(resource);
    }

    public Optional<RequestEntry> request(String requestId) {
        return Optional.ofNullable(requests.get(requestId));
    }

    /** Every lease held in memory, live or ended. */
    public Collection<Lease> leases() {
        return leases.all();
    }

    /** Every request entry held in memory, remembered at the position's clock or not (not yet compacted). */
    public Collection<RequestEntry> requests() {
        return Collections.unmodifiableCollection(requests.values());
    }

    /** The final lease of every permit a record changed since loading, one per permit. */
    public Collection<Lease> changedLeases() {
        return leases.changed();
    }

    /** The permits whose lease a record removed (released, or replaced by one of another share) since loading, and that were not granted again. */
    public Collection<LeaseKey> removedLeases() {
        return leases.removed();
    }

    /** The entries of request IDs applied since loading, one per request ID (the latest). */
    public Collection<RequestEntry> changedRequests() {
        return Collections.unmodifiableCollection(changedRequests.values());
    }

    /** The events of the records applied since loading, in the order they were made. */
    public List<EventEntry> newEvents() {
        return Collections.unmodifiableList(newEvents);
    }

    /** The partition's wait queues. */
    public WaitQueues queues() {
        return queues;
    }

    /** The replies of waiters decided by the records applied since loading, in the order they were made. */
    public List<DeferredReply> newDeferredReplies() {
        return Collections.unmodifiableList(newDeferred);
    }

    /** The carries and takens the seals applied since loading asked for, in order: the worker stores them until sent. */
    public List<Outbound.Transfer> newTransfers() {
        return Collections.unmodifiableList(newTransfers);
    }

    void add(Outbound.Transfer transfer) {
        if (writesBack) {
            newTransfers.add(transfer);
        }
    }

    /** Whether any record was applied since loading, so the position must be written back. */
    public boolean moved(PartitionPosition loaded) {
        return !position.equals(loaded);
    }

    void position(PartitionPosition next) {
        position = next;
    }

    void put(Lease lease) {
        leases.put(lease);
        dated(lease.expiresAt());
    }

    /**
     * A lease that ends at {@code end} was written at the record being applied. Waits are not
     * counted: one waits only behind a live lease (or a quarantine), and its end matters no more
     * once that lease has ended (it is granted then, or handed over).
     */
    void dated(Instant end) {
        if (datedUntil.isEmpty() || end.isAfter(datedUntil.get())) {
            datedUntil = Optional.of(end);
        }
    }

    /** The latest end dated since this was last asked: what the position's {@code liveUntil} must cover. */
    Optional<Instant> takeDatedUntil() {
        Optional<Instant> until = datedUntil;
        datedUntil = Optional.empty();
        return until;
    }

    /** Forgets a released lease: nothing a later record is decided by depends on it. */
    void remove(Lease lease) {
        leases.remove(lease);
    }

    /** Takes the leases that end at or before {@code now} off the live ones, in the order they end. */
    List<Lease> expireUntil(Instant now) {
        return leases.expireUntil(now);
    }

    void put(RequestEntry entry) {
        if (writesBack) {
            requests.put(entry.requestId(), entry);
            changedRequests.put(entry.requestId(), entry);
        } else {
            requests.put(entry.requestId(), new RequestEntry(entry.requestId(), entry.fingerprint(),
                    entry.reply().packInto(replies), entry.offset(), entry.appliedAt(), entry.decidedAt()));
        }
    }

    void add(EventEntry event) {
        if (writesBack) {
            events.computeIfAbsent(event.offset(), o -> new ArrayList<>()).add(event);
            newEvents.add(event);
        }
    }

    void add(DeferredReply reply) {
        if (writesBack) {
            deferred.computeIfAbsent(reply.offset(), o -> new ArrayList<>()).add(reply);
            newDeferred.add(reply);
        }
    }

    /** The replies of waiters the record at {@code offset} decided, in order; none when it decided none, or they were forgotten. */
    List<DeferredReply> deferredAt(long offset) {
        return deferred.getOrDefault(offset, List.of());
    }

    /** The events the record at {@code offset} made, in order; none when it made none, or they were forgotten. */
    List<EventEntry> eventsAt(long offset) {
        return events.getOrDefault(offset, List.of());
    }

    /**
     * Forgets the events below {@code offset}, whose publication was acknowledged: a replay over a
     * long log keeps only what it may still publish again.
     */
    public void forgetEventsBelow(long offset) {
        if (!events.isEmpty()) {
            events.keySet().removeIf(o -> o < offset);
        }
        if (!deferred.isEmpty()) {
            deferred.keySet().removeIf(o -> o < offset);
        }
        newDeferred.removeIf(d -> d.offset() < offset);
        // Appended in offset order: a replay forgets all of them after each record, in constant time.
        if (!newEvents.isEmpty() && newEvents.get(newEvents.size() - 1).offset() < offset) {
            newEvents.clear();
        } else {
            newEvents.removeIf(e -> e.offset() < offset);
        }
    }

    /**
     * What the sweeper removes, removed from memory: request entries and expired leases past the
     * request retention at the partition's clock (nothing a later record is decided by), and the
     * record of what changed. A replay over a long log calls it now and then to stay within the
     * retention's worth of memory; the replies and events it yields do not change.
     */
    public void compact(EngineSettings settings) {
        Instant clock = position.clock();
        // Entries are added in log-time order: the ones past the retention are at the head.
        Iterator<RequestEntry> oldest = requests.values().iterator();
        while (oldest.hasNext() && !oldest.next().rememberedAt(clock, settings)) {
            oldest.remove();
        }
        // Checkpoint.mayBeSeen, with the retention taken off the clock once instead of added to every lease.
        Instant seenAfter = clock.minus(settings.requestRetention());
        leases.forgetEndedBy(seenAfter);
        leases.clearChanges();
        changedRequests.clear();
        newEvents.clear();
        newDeferred.clear();
    }
}
