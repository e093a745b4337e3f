package dev.lockstep.engine;

import dev.lockstep.core.Command;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
            } else if (triaged.get(i) instanceof Triaged.Carry carry) {
                resources.add(carry.resource());
            }
        }
        return resources;
    }

    /**
     * Whether a seal or a taken is at or after {@code offset}: a seal carries off every resource
     * that leaves, a taken names every queue that arrived, so every lease and queue must be loaded.
     */
    public boolean regrows(long offset) {
        for (int i = 0; i < records.size(); i++) {
            if (records.get(i).offset() >= offset
                    && (triaged.get(i) instanceof Triaged.Seal || triaged.get(i) instanceof Triaged.Taken)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The latest time the partition can reach in this batch, from {@code position} on: the leases
     * that end up to it (and after the partition's clock) must be loaded, since the batch may show
     * their expiry. Keeping log time, the latest log-append time; anchored, no further than the
     * latest of the clock and the log-append times, plus every step forward the ticks' log-append
     * times take (a tick never moves time further than the broker's clock moved since the last).
     */
    public Instant reachableFrom(PartitionPosition position) {
        long offset = position.nextOffset();
        Instant latest = records.stream().filter(r -> r.offset() >= offset).flatMap(r -> r.logAppendTime().stream())
                .map(t -> t.truncatedTo(ChronoUnit.MILLIS)).max(Instant::compareTo).orElse(position.clock());
        if (!(machine.settings().timekeeping() instanceof Timekeeping.Anchored)) {
            return latest;
        }
        Duration forward = Duration.ZERO;
        Optional<Instant> lastTick = position.lastTick().map(TickMark::logTime);
        for (int i = 0; i < records.size(); i++) {
            Inbound record = records.get(i);
            if (record.offset() >= offset && triaged.get(i) instanceof Triaged.Tick) {
                Instant at = record.logAppendTime().orElseThrow().truncatedTo(ChronoUnit.MILLIS);
                if (lastTick.isPresent() && at.isAfter(lastTick.get())) {
                    forward = forward.plus(Duration.between(lastTick.get(), at));
                }
                lastTick = Optional.of(at);
            }
        }
        return (latest.isAfter(position.clock()) ? latest : position.clock()).plus(forward);
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
