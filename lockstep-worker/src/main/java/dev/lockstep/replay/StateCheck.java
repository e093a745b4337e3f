package dev.lockstep.replay;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.LeaseKey;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.TickMark;
import dev.lockstep.store.RecordedState;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Compares a partition's database rows with the state its replayed records leave. A lease the
 * sweeper may remove (expired longer than the request retention ago) may be there or not.
 */
final class StateCheck {

    private StateCheck() {
    }

    static List<Divergence> compare(String where, PartitionState state, EngineSettings settings,
            RecordedState.Progress progress, List<Lease> rows) {
        List<Divergence> divergences = new ArrayList<>();
        PartitionPosition position = state.position();
        if (progress.nextOffset() != position.nextOffset() || !progress.clock().equals(position.clock())
                || progress.tokenBase() != position.tokenBase()) {
            divergences.add(new Divergence(Divergence.Kind.POSITION_DIFFERS, where, Optional.empty(),
                    describe(position.nextOffset(), position.clock(), position.tokenBase()),
                    describe(progress.nextOffset(), progress.clock(), progress.tokenBase())));
        }
        // Only what the database knows is compared: a row last written before V15 has no last tick
        // and no live-until time, and the worker went on from it without them.
        if (progress.lastTick().isPresent() && !progress.lastTick().equals(position.lastTick())) {
            divergences.add(new Divergence(Divergence.Kind.POSITION_DIFFERS, where, Optional.empty(),
                    "last tick " + describe(position.lastTick()), "last tick " + describe(progress.lastTick())));
        }
        if (progress.liveUntil().isPresent() && !progress.liveUntil().equals(position.liveUntil())) {
            divergences.add(new Divergence(Divergence.Kind.POSITION_DIFFERS, where, Optional.empty(),
                    "live until " + position.liveUntil().map(Instant::toString).orElse("(not known)"),
                    "live until " + progress.liveUntil().get()));
        }
        Instant clock = position.clock();
        Map<LeaseKey, Lease> stored = new HashMap<>();
        rows.forEach(row -> stored.put(LeaseKey.of(row), row));
        for (Lease lease : state.leases()) {
            Lease row = stored.remove(LeaseKey.of(lease));
            if (row == null && !sweepable(lease, clock, settings)) {
                divergences.add(new Divergence(Divergence.Kind.LEASE_MISSING, where, Optional.empty(), describe(lease),
                        "no row for " + LeaseKey.of(lease)));
            } else if (row != null && !row.equals(lease)) {
                divergences.add(new Divergence(Divergence.Kind.LEASE_DIFFERS, where, Optional.empty(), describe(lease),
                        describe(row)));
            }
        }
        stored.values().stream().filter(row -> !sweepable(row, clock, settings)).forEach(row -> divergences.add(
                new Divergence(Divergence.Kind.LEASE_UNEXPECTED, where, Optional.empty(),
                        "no lease on " + LeaseKey.of(row), describe(row))));
        return divergences;
    }

    private static boolean sweepable(Lease lease, Instant clock, EngineSettings settings) {
        return !Checkpoint.mayBeSeen(lease, clock, settings);
    }

    private static String describe(long nextOffset, Instant clock, long tokenBase) {
        return "next offset " + nextOffset + ", clock " + clock + ", token base " + tokenBase;
    }

    private static String describe(Optional<TickMark> tick) {
        return tick.map(t -> "at offset " + t.offset() + ", log time " + t.logTime()).orElse("(none)");
    }

    private static String describe(Lease lease) {
        return lease.resource() + " held by " + lease.owner() + " with token " + lease.fencingToken() + " from "
                + lease.acquiredAt() + " until " + lease.expiresAt();
    }
}
