package dev.lockstep.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a worker starts applying a partition it was assigned, from the database's record and the
 * log as the broker has it now. The database, not the consumer group's committed offset, says
 * where: the committed offset is only a hint for monitoring.
 */
public sealed interface PartitionStart {

    /** Continue from the recorded next offset; nothing to write. */
    record Resume(long offset) implements PartitionStart {
    }

    /** Record {@code partition} (with an epoch saying why), then apply from its next offset. */
    record Begin(StoredPartition partition, EpochOrigin origin, String reason) implements PartitionStart {
    }

    /** Do not apply this partition: applying it could grant a lease twice or decide by other rules. */
    record Refuse(String reason, boolean settingsDiffer) implements PartitionStart {
    }

    /**
     * @param stored the database's record of the partition, if any
     * @param topicId the ID of the command topic on the cluster now
     * @param logStart the first offset the broker still has
     * @param logEnd the offset the next record will get
     * @param settings this worker's settings (with the topic's partition count)
     * @param acceptSettings record this worker's settings from the next offset on, if they differ
     * @param tokenFloor the largest fencing token in the database: a partition it never saw starts above it
     * @param startCount the count a partition that never started routes by until its seal: the
     *     topic's before its latest growth (a partition added since holds nothing under it)
     */
    public static PartitionStart decide(Optional<StoredPartition> stored, String topicId, long logStart, long logEnd,
            EngineSettings settings, boolean acceptSettings, long tokenFloor, int startCount) {
        if (stored.isEmpty()) {
            settings = settings.withPartitions(startCount);
            PartitionPosition fresh = PartitionPosition.fresh(0, PartitionPosition.START.clock(), tokenFloor);
            return logStart > 0
                    ? begin(topicId, fresh.afterLoss(logStart), settings, EpochOrigin.RECORDS_LOST,
                            "first start, but the log starts at offset " + logStart + ": records 0.." + (logStart - 1)
                                    + " were never applied; quarantined")
                    : begin(topicId, fresh, settings, EpochOrigin.FIRST_START, "first start");
        }
        StoredPartition known = stored.get();
        List<String> reasons = new ArrayList<>();
        if (known.settings().isPresent()) {
            EngineSettings recorded = known.settings().get();
            // The count a partition started with stays recorded: its seals say how it routes since.
            settings = settings.withPartitions(recorded.partitions());
            List<String> differences = settings.differencesFrom(recorded);
            if (!differences.isEmpty() && !acceptSettings) {
                return new Refuse("this worker's settings differ from those recorded for the partition ("
                        + String.join("; ", differences) + "); start it with the recorded settings, or with "
                        + "--accept-settings-change to apply its own from the next offset on", true);
            }
            if (!differences.isEmpty()) {
                reasons.add("settings changed from offset " + known.position().nextOffset() + " ("
                        + String.join("; ", differences) + ")");
            }
        } else {
            reasons.add("settings recorded");
        }
        PartitionPosition position = known.position();
        EpochOrigin origin = EpochOrigin.CONTINUED;
        if (known.topicId().isPresent() && !known.topicId().get().equals(topicId)) {
            origin = EpochOrigin.TOPIC_RECREATED;
            position = position.nextIncarnation();
            reasons.add("the command topic was re-created (topic ID " + topicId + ", was " + known.topicId().get()
                    + "): its leases carry over and new tokens start above " + position.tokenBase());
        } else if (known.topicId().isEmpty() && position.nextOffset() > logEnd) {
            origin = EpochOrigin.TOPIC_RECREATED;
            position = position.nextIncarnation();
            reasons.add("no topic ID was recorded and the log ends at " + logEnd + ", before the recorded offset: "
                    + "taken as a re-created topic (topic ID " + topicId + "); new tokens start above "
                    + position.tokenBase());
        } else if (known.topicId().isEmpty()) {
            reasons.add("topic ID " + topicId + " adopted");
        } else if (position.nextOffset() > logEnd) {
            return new Refuse("the database is ahead of the log: it applied up to offset " + position.nextOffset()
                    + " but the log ends at " + logEnd + " (a truncated log or an unclean leader election); "
                    + "applying it could grant a lease twice", false);
        }
        if (position.nextOffset() < logStart) {
            reasons.add("records " + position.nextOffset() + ".." + (logStart - 1) + " are gone from the log and were "
                    + "never applied: no lease is granted or renewed until the longest TTL has passed");
            position = position.afterLoss(logStart);
            origin = EpochOrigin.RECORDS_LOST;
        }
        return reasons.isEmpty() ? new Resume(position.nextOffset()) : begin(topicId, position, settings, origin,
                String.join("; ", reasons));
    }

    /** As the full form, for a topic that never grew: a partition that never started routes by {@code settings}' count. */
    public static PartitionStart decide(Optional<StoredPartition> stored, String topicId, long logStart, long logEnd,
            EngineSettings settings, boolean acceptSettings, long tokenFloor) {
        return decide(stored, topicId, logStart, logEnd, settings, acceptSettings, tokenFloor, settings.partitions());
    }

    private static Begin begin(String topicId, PartitionPosition position, EngineSettings settings, EpochOrigin origin,
            String reason) {
        return new Begin(new StoredPartition(Optional.of(topicId), position, Optional.of(settings)), origin, reason);
    }
}
