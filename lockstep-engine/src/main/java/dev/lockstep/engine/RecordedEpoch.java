package dev.lockstep.engine;

import java.util.Objects;

/**
 * One start of a partition's epoch as the database recorded it ({@code partition_epochs}): from
 * {@code startOffset} on, records are decided under {@code settings}, tokens are {@code tokenBase +
 * offset + 1}.
 */
public record RecordedEpoch(long startOffset, String topicId, long tokenBase, EngineSettings settings,
        EpochOrigin origin, String reason) {

    public RecordedEpoch {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(origin, "origin");
        Objects.requireNonNull(reason, "reason");
    }
}
