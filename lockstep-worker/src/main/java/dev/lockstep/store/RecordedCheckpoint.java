package dev.lockstep.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A checkpoint as {@code partition_checkpoints} lists it; its leases and request entries are read
 * only when a replay needs them ({@link CheckpointReader}).
 *
 * @param nextOffset the records below it made the checkpoint's state
 * @param clock the partition's log time there
 */
public record RecordedCheckpoint(long id, int partition, String topicId, long nextOffset, Instant clock) {

    public RecordedCheckpoint {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(clock, "clock");
    }
}
