package dev.lockstep.replay;

import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.Step;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * One partition's retained records through the worker's own {@link PartitionMachine}, in memory,
 * under the epochs the database recorded: what the worker must have published, and the state it
 * must have left. A record whose starting state the log does not hold (the log's beginning is
 * gone, the topic was re-created, records were lost) ends what can be verified.
 *
 * <pre>{@code
 * PartitionReplay replay = PartitionReplay.start(epochs, logStart);
 * records.forEach(r -> replay.apply(r, (record, step) -> expectations.add(record, step)));
 * replay.state();                  // the leases and position the log leaves
 * replay.unverifiable();           // why the rest could not be replayed, if it could not
 * }</pre>
 */
final class PartitionReplay {

    private static final int COMPACT_EVERY = 10_000;

    private final List<RecordedEpoch> epochs;
    private int nextEpoch;
    private PartitionMachine machine;
    private PartitionState state;
    private Optional<String> unverifiable = Optional.empty();
    private long replayed;

    private PartitionReplay(List<RecordedEpoch> epochs) {
        this.epochs = epochs;
    }

    /**
     * @param epochs the partition's recorded epochs of the current topic incarnation
     * @param logStart the first offset the log still has
     */
    static PartitionReplay start(List<RecordedEpoch> epochs, long logStart) {
        List<RecordedEpoch> sorted = new ArrayList<>(epochs);
        sorted.sort(Comparator.comparingLong(RecordedEpoch::startOffset));
        PartitionReplay replay = new PartitionReplay(sorted);
        if (sorted.isEmpty()) {
            replay.unverifiable = Optional.of("no epoch is recorded for it: no worker has started it");
        } else if (sorted.get(0).origin() != EpochOrigin.FIRST_START || sorted.get(0).startOffset() != 0) {
            replay.unverifiable = Optional.of("its first recorded epoch (" + sorted.get(0).reason()
                    + ") did not start from an empty state at offset 0");
        } else if (logStart > 0) {
            replay.unverifiable = Optional.of("records 0.." + (logStart - 1)
                    + " are gone from the log, and no checkpoint covers them");
        } else {
            RecordedEpoch first = sorted.get(0);
            replay.machine = new PartitionMachine(first.settings());
            replay.state = PartitionState.empty(new PartitionPosition(0, PartitionPosition.START.clock(),
                    first.tokenBase(), Optional.empty()));
            replay.nextEpoch = 1;
        }
        return replay;
    }

    /** Applies the partition's next record, handing it and what it produced to {@code sink}. */
    void apply(Inbound record, BiConsumer<Inbound, Step> sink) {
        if (unverifiable.isPresent()) {
            return;
        }
        while (nextEpoch < epochs.size() && epochs.get(nextEpoch).startOffset() <= record.offset()) {
            RecordedEpoch epoch = epochs.get(nextEpoch++);
            if (!epoch.origin().stateFromLog()) {
                unverifiable = Optional.of("from offset " + epoch.startOffset() + " its state did not come from this log ("
                        + epoch.reason() + ")");
                return;
            }
            machine = new PartitionMachine(epoch.settings());
        }
        Step step = machine.step(record, state);
        // Nothing is redelivered in a replay: events are never published again from memory.
        state.forgetEventsBelow(record.offset() + 1);
        if (++replayed % COMPACT_EVERY == 0) {
            state.compact(machine.settings());
        }
        sink.accept(record, step);
    }

    /** The state the replayed records leave; empty when the partition could not be replayed from its start. */
    Optional<PartitionState> state() {
        return Optional.ofNullable(state);
    }

    Optional<String> unverifiable() {
        return unverifiable;
    }

    long replayed() {
        return replayed;
    }

    /** The recorded settings in force after the last record replayed. */
    Optional<PartitionMachine> machine() {
        return Optional.ofNullable(machine);
    }
}
