package dev.lockstep.engine;

import dev.lockstep.core.Command;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A batch of one partition's records, read and routed by {@link PartitionMachine#prepare}, not yet
 * applied: what it names tells the caller which state to load before {@link #applyTo}.
 */
public final class PreparedBatch {

    private final PartitionMachine machine;
    private final List<Inbound> records;
    private final List<Triaged> triaged;

    PreparedBatch(PartitionMachine machine, List<Inbound> records, List<Triaged> triaged) {
        this.machine = machine;
        this.records = records;
        this.triaged = triaged;
    }

    /**
     * The request IDs of the batch's valid commands, and of the acquires its cancellations
     * cancel: their entries must be loaded.
     */
    public Set<String> requestIds() {
        Set<String> ids = new LinkedHashSet<>();
        triaged.forEach(t -> {
            if (t instanceof Triaged.Apply apply) {
                ids.add(apply.requestId());
                if (apply.command() instanceof Command.Release release) {
                    release.cancels().ifPresent(ids::add);
                }
            } else if (t instanceof Triaged.Undelivered marker && !(marker.marked() instanceof Triaged.Reject)) {
                ids.add(marker.marked().requestId());
            }
        });
        return ids;
    }

    /**
     * The resources of the valid commands and hand-overs at or after {@code offset}: their
     * leases and queues must be loaded.
     */
    public Set<String> resourcesFrom(long offset) {
        Set<String> resources = new LinkedHashSet<>();
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).offset() < offset) {
                continue;
            }
            if (triaged.get(i) instanceof Triaged.Apply apply) {
                resources.add(apply.command().resource());
            } else if (triaged.get(i) instanceof Triaged.HandOver handOver) {
                resources.add(handOver.resource());
            }
        }
        return resources;
    }

    /**
     * The latest log time of the records at or after {@code offset}: the leases that end up to
     * it (and after the partition's clock) must be loaded, their expiry is shown by this batch.
     */
    public Optional<Instant> latestTimeFrom(long offset) {
        return records.stream().filter(r -> r.offset() >= offset).flatMap(r -> r.logAppendTime().stream())
                .max(Instant::compareTo);
    }

    /** Applies the records in order; for each, its events, then its answer. */
    public List<Outbound> applyTo(PartitionState state) {
        List<Outbound> out = new ArrayList<>(records.size());
        for (int i = 0; i < records.size(); i++) {
            out.addAll(machine.step(records.get(i), triaged.get(i), state).all());
        }
        return out;
    }
}
