package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One partition's state as the {@link PartitionMachine} sees it: its position, the latest lease of
 * each resource, and the request IDs it remembers; with what changed since it was loaded.
 *
 * <p>The worker loads only what one batch touches (the position, the leases of the batch's
 * resources, the entries of its request IDs) and writes back {@link #changedLeases()} and
 * {@link #changedRequests()}; a replay keeps the whole partition in memory. Both run the same
 * machine over the same type, which is what makes the replay the worker's exact model.
 */
public final class PartitionState {

    private PartitionPosition position;
    private final Map<String, Lease> leases;
    private final Map<String, RequestEntry> requests;
    private final Map<String, Lease> changedLeases = new LinkedHashMap<>();
    private final Map<String, RequestEntry> changedRequests = new LinkedHashMap<>();

    /**
     * @param leases the latest lease of (at least) every resource the records will touch
     * @param requests the entries of (at least) every request ID the records carry
     */
    public PartitionState(PartitionPosition position, Map<String, Lease> leases, Map<String, RequestEntry> requests) {
        this.position = position;
        this.leases = new HashMap<>(leases);
        this.requests = new HashMap<>(requests);
    }

    public static PartitionState empty(PartitionPosition position) {
        return new PartitionState(position, Map.of(), Map.of());
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

    /** The final lease of every resource a record changed since loading, one per resource. */
    public Collection<Lease> changedLeases() {
        return Collections.unmodifiableCollection(changedLeases.values());
    }

    /** The entries of request IDs applied since loading, one per request ID (the latest). */
    public Collection<RequestEntry> changedRequests() {
        return Collections.unmodifiableCollection(changedRequests.values());
    }

    /** Whether any record was applied since loading, so the position must be written back. */
    public boolean moved(PartitionPosition loaded) {
        return !position.equals(loaded);
    }

    void position(PartitionPosition next) {
        position = next;
    }

    void put(Lease lease) {
        leases.put(lease.resource(), lease);
        changedLeases.put(lease.resource(), lease);
    }

    void put(RequestEntry entry) {
        requests.put(entry.requestId(), entry);
        changedRequests.put(entry.requestId(), entry);
    }
}
