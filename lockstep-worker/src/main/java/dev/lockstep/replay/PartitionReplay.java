package dev.lockstep.replay;

import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.Step;
import dev.lockstep.store.RecordedCheckpoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * One partition's retained records through the worker's own {@link PartitionMachine}, in memory,
 * by a {@link PartitionDriver} over the log (the hand-overs and ticks the worker appended are in it),
 * under the epochs the database recorded: what the worker must have published, and the state it
 * must have left. It starts from an empty state at offset 0 when the log still holds the
 * partition's first records, and otherwise from the earliest recorded checkpoint the log still
 * reaches. Every other checkpoint it passes is compared with the state the log leaves there. A
 * record whose starting state the log does not hold (the topic was re-created, records were lost)
 * ends what can be verified.
 *
 * <pre>{@code
 * PartitionReplay replay = PartitionReplay.start(epochs, logStart, checkpoints, reader::read);
 * records.forEach(r -> replay.apply(r, (record, step) -> expectations.add(record, step)));
 * replay.state();                  // the leases and position the log leaves
 * replay.unverifiable();           // why the rest could not be replayed, if it could not
 * }</pre>
 */
final class PartitionReplay {

    private static final int COMPACT_EVERY = 10_000;

    private final List<RecordedEpoch> epochs;
    private final List<RecordedCheckpoint> checkpoints;
    private final Function<RecordedCheckpoint, Optional<Checkpoint>> reader;
    private final List<Divergence> divergences = new ArrayList<>();
    private int nextEpoch;
    private int nextCheckpoint;
    private int checkpointsCompared;
    private PartitionDriver driver;
    private PartitionState state;
    private Optional<RecordedCheckpoint> startedFrom = Optional.empty();
    private long readFrom;
    private Optional<String> unverifiable = Optional.empty();
    private long replayed;

    private PartitionReplay(List<RecordedEpoch> epochs, List<RecordedCheckpoint> checkpoints,
            Function<RecordedCheckpoint, Optional<Checkpoint>> reader) {
        this.epochs = epochs;
        this.checkpoints = checkpoints;
        this.reader = reader;
    }

    /**
     * @param epochs the partition's recorded epochs of the current topic incarnation
     * @param logStart the first offset the log still has
     * @param checkpoints the partition's recorded checkpoints of the current topic incarnation
     * @param reader a checkpoint's state; empty when it was removed since it was listed
     */
    static PartitionReplay start(List<RecordedEpoch> epochs, long logStart, List<RecordedCheckpoint> checkpoints,
            Function<RecordedCheckpoint, Optional<Checkpoint>> reader) {
        List<RecordedEpoch> sorted = new ArrayList<>(epochs);
        sorted.sort(Comparator.comparingLong(RecordedEpoch::startOffset));
        List<RecordedCheckpoint> listed = new ArrayList<>(checkpoints);
        listed.sort(Comparator.comparingLong(RecordedCheckpoint::nextOffset));
        PartitionReplay replay = new PartitionReplay(sorted, listed, reader);
        if (sorted.isEmpty()) {
            replay.unverifiable = Optional.of("no epoch is recorded for it: no worker has started it");
            return replay;
        }
        RecordedEpoch first = sorted.get(0);
        if (first.origin() == EpochOrigin.FIRST_START && first.startOffset() == 0 && logStart == 0) {
            replay.state = PartitionState.empty(PartitionPosition.fresh(0, PartitionPosition.START.clock(),
                    first.tokenBase()));
            replay.state.forReplay();
            replay.driver = PartitionDriver.log(new PartitionMachine(first.settings()), replay.state);
            replay.nextEpoch = 1;
            return replay;
        }
        for (RecordedCheckpoint checkpoint : listed) {
            if (checkpoint.nextOffset() >= logStart && replay.resumeFrom(checkpoint)) {
                return replay;
            }
        }
        replay.unverifiable = Optional.of(logStart > 0
                ? "records 0.." + (logStart - 1) + " are gone from the log, and no checkpoint covers them"
                : "its first recorded epoch (" + first.reason() + ") did not start from an empty state at offset 0, "
                        + "and no checkpoint covers it");
        return replay;
    }

    /** Goes on from a checkpoint's state, under the epoch its records were decided by. */
    private boolean resumeFrom(RecordedCheckpoint checkpoint) {
        long at = checkpoint.nextOffset();
        int following = 0;
        while (following < epochs.size() && epochs.get(following).startOffset() < at) {
            following++;
        }
        if (following == 0) {
            return false;
        }
        Optional<Checkpoint> recorded = reader.apply(checkpoint);
        if (recorded.isEmpty()) {
            return false;
        }
        state = recorded.get().state();
        state.forReplay();
        driver = PartitionDriver.log(new PartitionMachine(epochs.get(following - 1).settings()), state);
        nextEpoch = following;
        nextCheckpoint = checkpoints.indexOf(checkpoint) + 1;
        startedFrom = Optional.of(checkpoint);
        readFrom = at;
        return true;
    }

    /** The first offset this replay applies: 0, or the offset of the checkpoint it started from. */
    long readFrom() {
        return readFrom;
    }

    /** Applies the partition's next record, handing it and what it produced to {@code sink}. */
    void apply(Inbound record, BiConsumer<Inbound, Step> sink) {
        if (unverifiable.isPresent() || record.offset() < readFrom) {
            return;
        }
        while (nextEpoch < epochs.size() && epochs.get(nextEpoch).startOffset() <= record.offset()) {
            RecordedEpoch epoch = epochs.get(nextEpoch++);
            if (!epoch.origin().stateFromLog()) {
                unverifiable = Optional.of("from offset " + epoch.startOffset() + " its state did not come from this log ("
                        + epoch.reason() + ")");
                return;
            }
            driver = PartitionDriver.log(new PartitionMachine(epoch.settings()), state);
        }
        Step step = driver.apply(record);
        if (++replayed % COMPACT_EVERY == 0) {
            state.compact(driver.machine().settings());
        }
        compareCheckpoints(record);
        sink.accept(record, step);
    }

    /** Compares the checkpoint recorded where the state now stands, if there is one. */
    private void compareCheckpoints(Inbound record) {
        long next = state.position().nextOffset();
        while (nextCheckpoint < checkpoints.size() && checkpoints.get(nextCheckpoint).nextOffset() <= next) {
            RecordedCheckpoint recorded = checkpoints.get(nextCheckpoint++);
            if (recorded.nextOffset() < next) {
                continue;
            }
            Optional<Checkpoint> stored = reader.apply(recorded);
            if (stored.isEmpty()) {
                continue;
            }
            checkpointsCompared++;
            EngineSettings settings = driver.machine().settings();
            Checkpoint.of(state, settings).differenceFrom(stored.get().routedBy(settings)).ifPresent(difference ->
                    divergences.add(new Divergence(Divergence.Kind.CHECKPOINT_DIFFERS, record.topic() + "-"
                            + record.partition() + "@" + next, Optional.empty(),
                            "the state the records before offset " + next + " leave",
                            "checkpoint at offset " + next + ": " + difference)));
        }
    }

    /** The state the replayed records leave; empty when the partition could not be replayed. */
    Optional<PartitionState> state() {
        return Optional.ofNullable(state);
    }

    Optional<String> unverifiable() {
        return unverifiable;
    }

    /** The checkpoint the replay started from, when the log no longer holds the partition's beginning. */
    Optional<RecordedCheckpoint> startedFrom() {
        return startedFrom;
    }

    /** Checkpoints passed that differ from the state the log leaves there. */
    List<Divergence> divergences() {
        return divergences;
    }

    int checkpointsCompared() {
        return checkpointsCompared;
    }

    long replayed() {
        return replayed;
    }

    /** The recorded settings in force after the last record replayed. */
    Optional<PartitionMachine> machine() {
        return Optional.ofNullable(driver).map(PartitionDriver::machine);
    }
}
