package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One partition's state as the {@link PartitionMachine} sees it: its position, the latest lease of
 * each resource, the request IDs it remembers and the events not yet known to be published; with
 * what changed since it was loaded.
 *
 * <p>The worker loads only what one batch touches (the position, the leases of the batch's
 * resources and those ending within the batch's log time, the entries of its request IDs, the
 * events of records fetched again) and writes back what changed; a replay keeps the whole
 * partition in memory. Both run the same machine over the same type, which is what makes the
 * replay the worker's exact model.
 */
public final class PartitionState {

    private static final Comparator<Lease> BY_END = Comparator.comparing(Lease::expiresAt).thenComparing(Lease::resource);

    private PartitionPosition position;
    private final Map<String, Lease> leases;
    /** The leases live at the position's clock, by end: the next to expire comes first. */
    private final NavigableSet<Lease> live = new TreeSet<>(BY_END);
    private final Map<String, RequestEntry> requests;
    private final Map<Long, List<EventEntry>> events = new HashMap<>();
    private final Map<String, Lease> changedLeases = new LinkedHashMap<>();
    private final Set<String> removedLeases = new LinkedHashSet<>();
    private final Map<String, RequestEntry> changedRequests = new LinkedHashMap<>();
    private final List<EventEntry> newEvents = new ArrayList<>();

    /**
     * @param leases the latest lease of (at least) every resource the records will touch, and of
     *     every lease that ends within their log time
     * @param requests the entries of (at least) every request ID the records carry
     * @param events the events of (at least) every record below the position that will be fetched again
     */
    public PartitionState(PartitionPosition position, Map<String, Lease> leases, Map<String, RequestEntry> requests,
            Collection<EventEntry> events) {
        this.position = position;
        this.leases = new HashMap<>(leases);
        this.requests = new LinkedHashMap<>(requests);
        leases.values().stream().filter(lease -> lease.isLiveAt(position.clock())).forEach(live::add);
        events.forEach(e -> this.events.computeIfAbsent(e.offset(), o -> new ArrayList<>()).add(e));
        this.events.values().forEach(list -> list.sort(Comparator.comparingInt(EventEntry::index)));
    }

    public static PartitionState empty(PartitionPosition position) {
        return new PartitionState(position, Map.of(), Map.of(), List.of());
    }

    public PartitionPosition position() {
        return position;
    }

    public Optional<Lease> lease(String resource) {
        return Optional.ofNullable(leases.get(resource));
    }

    public Optional<RequestEntry> request(String requestId) {
        return Optional.ofNullable(requests.get(requestId));
    }

    /** Every lease held in memory, live or ended. */
    public Collection<Lease> leases() {
        return Collections.unmodifiableCollection(leases.values());
    }

    /** Every request entry held in memory, remembered at the position's clock or not (not yet compacted). */
    public Collection<RequestEntry> requests() {
        return Collections.unmodifiableCollection(requests.values());
    }

    /** The final lease of every resource a record changed since loading, one per resource. */
    public Collection<Lease> changedLeases() {
        return Collections.unmodifiableCollection(changedLeases.values());
    }

    /** The resources whose lease a record removed (released) since loading, and that were not granted again. */
    public Collection<String> removedLeases() {
        return Collections.unmodifiableCollection(removedLeases);
    }

    /** The entries of request IDs applied since loading, one per request ID (the latest). */
    public Collection<RequestEntry> changedRequests() {
        return Collections.unmodifiableCollection(changedRequests.values());
    }

    /** The events of the records applied since loading, in the order they were made. */
    public List<EventEntry> newEvents() {
        return Collections.unmodifiableList(newEvents);
    }

    /** Whether any record was applied since loading, so the position must be written back. */
    public boolean moved(PartitionPosition loaded) {
        return !position.equals(loaded);
    }

    void position(PartitionPosition next) {
        position = next;
    }

    void put(Lease lease) {
        Lease before = leases.put(lease.resource(), lease);
        if (before != null) {
            live.remove(before);
        }
        live.add(lease);
        changedLeases.put(lease.resource(), lease);
        removedLeases.remove(lease.resource());
    }

    /** Forgets a released lease: nothing a later record is decided by depends on it. */
    void remove(String resource) {
        Lease before = leases.remove(resource);
        if (before != null) {
            live.remove(before);
        }
        changedLeases.remove(resource);
        removedLeases.add(resource);
    }

    /** Takes the leases that end at or before {@code now} off the live ones, in the order they end. */
    List<Lease> expireUntil(Instant now) {
        List<Lease> ended = new ArrayList<>();
        while (!live.isEmpty() && !live.first().isLiveAt(now)) {
            ended.add(live.pollFirst());
        }
        return ended;
    }

    void put(RequestEntry entry) {
        requests.put(entry.requestId(), entry);
        changedRequests.put(entry.requestId(), entry);
    }

    void add(EventEntry event) {
        events.computeIfAbsent(event.offset(), o -> new ArrayList<>()).add(event);
        newEvents.add(event);
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
        leases.values().removeIf(lease -> !Checkpoint.mayBeSeen(lease, clock, settings));
        changedLeases.clear();
        removedLeases.clear();
        changedRequests.clear();
        newEvents.clear();
    }
}
