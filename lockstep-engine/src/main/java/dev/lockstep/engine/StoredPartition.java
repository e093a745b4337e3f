package dev.lockstep.engine;

import java.util.Objects;
import java.util.Optional;

/**
 * A partition as the database records it: which incarnation of the command topic it follows, its
 * position, and the settings its records are decided under.
 *
 * @param topicId the Kafka topic ID of the incarnation applied; empty in a database from before IDs
 *     were recorded, until a worker adopts the topic it finds
 * @param settings empty in a database from before settings were recorded
 */
public record StoredPartition(Optional<String> topicId, PartitionPosition position, Optional<EngineSettings> settings) {

    public StoredPartition {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(position, "position");
        Objects.requireNonNull(settings, "settings");
    }
}
