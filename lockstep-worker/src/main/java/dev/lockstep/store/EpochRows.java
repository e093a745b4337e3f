package dev.lockstep.store;

import static dev.lockstep.store.SqlArrays.EPOCH_MS;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.StoredPartition;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The start of a partition's epoch: its progress row, the epoch's record, and the old incarnation's events gone. */
final class EpochRows {

    private static final String UPSERT_PARTITION =
            "INSERT INTO partition_progress (topic, partition, topic_id, next_offset, last_now, token_base, "
                    + "quarantine_from, quarantine_to, quarantine_until, settings, request_retention_ms, acked_offset, "
                    + "last_tick_offset, last_tick_time, live_until) "
                    + "VALUES (?, ?, ?, ?, " + EPOCH_MS.formatted("?") + ", ?, ?, ?, " + EPOCH_MS.formatted("?")
                    + ", ?, ?, ?, ?, " + EPOCH_MS.formatted("?") + ", " + EPOCH_MS.formatted("?")
                    + ") ON CONFLICT (topic, partition) DO UPDATE SET topic_id = EXCLUDED.topic_id, "
                    // Within one incarnation, replies not yet acknowledged stay owed.
                    + "acked_offset = CASE WHEN partition_progress.topic_id = EXCLUDED.topic_id "
                    + "THEN LEAST(partition_progress.acked_offset, EXCLUDED.acked_offset) ELSE EXCLUDED.acked_offset END, "
                    + "next_offset = EXCLUDED.next_offset, last_now = EXCLUDED.last_now, "
                    + "token_base = EXCLUDED.token_base, quarantine_from = EXCLUDED.quarantine_from, "
                    + "quarantine_to = EXCLUDED.quarantine_to, quarantine_until = EXCLUDED.quarantine_until, "
                    + "settings = EXCLUDED.settings, request_retention_ms = EXCLUDED.request_retention_ms, "
                    + "last_tick_offset = EXCLUDED.last_tick_offset, last_tick_time = EXCLUDED.last_tick_time, "
                    + "live_until = EXCLUDED.live_until";
    private static final String INSERT_EPOCH =
            "INSERT INTO partition_epochs (topic, partition, start_offset, topic_id, token_base, settings, reason, "
                    + "origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    // A new epoch's offsets start again; the old incarnation's events cannot be fetched again.
    private static final String DELETE_EVENTS = "DELETE FROM lease_events WHERE topic = ? AND partition = ?";

    private EpochRows() {
    }

    static void begin(Connection connection, PartitionId partition, StoredPartition started, EpochOrigin origin,
            String reason) throws SQLException {
        PartitionPosition position = started.position();
        String topicId = started.topicId().orElseThrow(() -> new IllegalArgumentException("an epoch needs a topic ID"));
        EngineSettings settings = started.settings()
                .orElseThrow(() -> new IllegalArgumentException("an epoch needs settings"));
        try (PreparedStatement upsert = connection.prepareStatement(UPSERT_PARTITION);
                PreparedStatement epoch = connection.prepareStatement(INSERT_EPOCH);
                PreparedStatement events = connection.prepareStatement(DELETE_EVENTS)) {
            upsert.setString(1, partition.topic());
            upsert.setInt(2, partition.partition());
            upsert.setString(3, topicId);
            upsert.setLong(4, position.nextOffset());
            upsert.setLong(5, position.clock().toEpochMilli());
            upsert.setLong(6, position.tokenBase());
            SqlArrays.setQuarantine(upsert, 7, position.quarantine());
            upsert.setString(10, settings.canonical());
            upsert.setLong(11, settings.requestRetention().toMillis());
            upsert.setLong(12, position.nextOffset());
            SqlArrays.setTickAndLive(upsert, 13, position);
            upsert.executeUpdate();
            epoch.setString(1, partition.topic());
            epoch.setInt(2, partition.partition());
            epoch.setLong(3, position.nextOffset());
            epoch.setString(4, topicId);
            epoch.setLong(5, position.tokenBase());
            epoch.setString(6, settings.canonical());
            epoch.setString(7, reason);
            epoch.setString(8, origin.name());
            epoch.executeUpdate();
            events.setString(1, partition.topic());
            events.setInt(2, partition.partition());
            events.executeUpdate();
        }
    }
}
