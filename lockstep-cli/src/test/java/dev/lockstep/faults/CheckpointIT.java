package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Divergence;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.store.CheckpointPolicy;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Checkpoints on a real run: the worker records them, a full replay compares each with the state
 * the log leaves (a tampered one is named), and once the log's beginning is deleted the replay
 * starts from the earliest checkpoint the log still reaches and reproduces the rest as the full
 * replay did, planted divergences included.
 */
class CheckpointIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static ReplayReport replay(TopicNames topics) {
        return new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
    }

    /** Each partition's checkpoint offsets, oldest first. */
    private static Map<Integer, List<Long>> checkpoints(TopicNames topics) throws Exception {
        Map<Integer, List<Long>> offsets = new HashMap<>();
        try (Connection c = env.jdbc(); PreparedStatement select = c.prepareStatement(
                "SELECT partition, next_offset FROM partition_checkpoints WHERE topic = ? ORDER BY partition, next_offset")) {
            select.setString(1, topics.commands());
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    offsets.computeIfAbsent(rs.getInt(1), p -> new ArrayList<>()).add(rs.getLong(2));
                }
            }
        }
        return offsets;
    }

    private static int update(String sql, Object... values) throws Exception {
        try (Connection c = env.jdbc(); PreparedStatement update = c.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                update.setObject(i + 1, values[i]);
            }
            return update.executeUpdate();
        }
    }

    @Test
    void aReplayFromCheckpointsAfterTheLogsStartWasDeletedReproducesTheRest() throws Exception {
        TopicNames topics = env.topics().suffixed("-checkpoints");
        LockstepExtension.createTopics(env.kafka(), topics);
        WorkerSettings settings = WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("checkpoints")
                .withCheckpoints(new CheckpointPolicy(Duration.ofSeconds(1), 100));
        try (RunningWorker worker = env.startWorker(settings);
                Workload load = Workload.start(env.kafka(), topics.commands(), 43, 4, 4, Duration.ofMillis(10))) {
            load.awaitPublished(2_000);
            Histories.await(env.kafka(), topics, load.finish(), Duration.ofSeconds(60));
        }
        Map<Integer, List<Long>> taken = checkpoints(topics);
        assertThat(taken).as("partitions with checkpoints").hasSize(LockstepExtension.PARTITIONS);
        assertThat(taken.values()).as("several checkpoints per partition").allMatch(list -> list.size() >= 4);

        ReplayReport full = replay(topics);
        assertThat(full.divergences()).isEmpty();
        assertThat(full.unverifiable()).isEmpty();
        assertThat(full.startedFrom()).isEmpty();
        assertThat(full.checkpointsCompared()).as("every checkpoint compared")
                .isEqualTo(taken.values().stream().mapToInt(List::size).sum());

        int tampered = update("UPDATE checkpoint_leases SET owner = 'mallory' WHERE checkpoint_id = (SELECT max(l.checkpoint_id) "
                + "FROM checkpoint_leases l JOIN partition_checkpoints c USING (checkpoint_id) WHERE c.topic = ?)",
                topics.commands());
        assertThat(tampered).isPositive();
        ReplayReport planted = replay(topics);
        assertThat(planted.divergences()).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo(Divergence.Kind.CHECKPOINT_DIFFERS);
            assertThat(d.found()).contains("mallory");
        });
        update("DELETE FROM partition_checkpoints WHERE checkpoint_id = (SELECT max(l.checkpoint_id) "
                + "FROM checkpoint_leases l JOIN partition_checkpoints c USING (checkpoint_id) WHERE c.topic = ?)",
                topics.commands());

        // Retention forced: each partition's log now starts between its second and third checkpoint.
        Map<TopicPartition, RecordsToDelete> deletions = new HashMap<>();
        Map<Integer, Long> expectedStarts = new HashMap<>();
        checkpoints(topics).forEach((partition, offsets) -> {
            deletions.put(new TopicPartition(topics.commands(), partition),
                    RecordsToDelete.beforeOffset(offsets.get(1) + 1));
            expectedStarts.put(partition, offsets.get(2));
        });
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.deleteRecords(deletions).all().get();
        }

        ReplayReport fromCheckpoints = replay(topics);
        System.out.println("lockstep replay after the log's start was deleted: " + fromCheckpoints.text().strip());
        assertThat(fromCheckpoints.exitCode()).isEqualTo(ReplayReport.REPRODUCED);
        assertThat(fromCheckpoints.divergences()).isEmpty();
        assertThat(fromCheckpoints.unverifiable()).isEmpty();
        assertThat(fromCheckpoints.partitionsCompared()).isEqualTo(full.partitionsCompared());
        assertThat(fromCheckpoints.records()).isLessThan(full.records()).isPositive();
        assertThat(fromCheckpoints.repliesCompared()).isPositive();
        assertThat(fromCheckpoints.eventsCompared()).isPositive();
        assertThat(fromCheckpoints.startedFrom()).hasSize(LockstepExtension.PARTITIONS);
        expectedStarts.forEach((partition, offset) -> assertThat(fromCheckpoints.startedFrom())
                .anyMatch(line -> line.startsWith(topics.commands() + "-" + partition + ": from offset " + offset + " ")));

        // Still a check, not a formality: an edited lease row is named as before.
        String resource;
        String owner;
        try (Connection c = env.jdbc(); PreparedStatement select = c.prepareStatement(
                "SELECT resource, owner FROM distributed_locks WHERE topic = ? ORDER BY resource LIMIT 1")) {
            select.setString(1, topics.commands());
            try (ResultSet rs = select.executeQuery()) {
                assertThat(rs.next()).isTrue();
                resource = rs.getString(1);
                owner = rs.getString(2);
            }
        }
        update("UPDATE distributed_locks SET owner = 'mallory' WHERE resource = ?", resource);
        ReplayReport edited = replay(topics);
        assertThat(edited.divergences()).singleElement()
                .satisfies(d -> assertThat(d.kind()).isEqualTo(Divergence.Kind.LEASE_DIFFERS));
        update("UPDATE distributed_locks SET owner = ? WHERE resource = ?", owner, resource);

        // Past every checkpoint nothing covers the start any more.
        update("DELETE FROM partition_checkpoints WHERE topic = ? AND partition = 0", topics.commands());
        ReplayReport uncovered = replay(topics);
        assertThat(uncovered.exitCode()).isEqualTo(ReplayReport.CANNOT_VERIFY);
        assertThat(uncovered.unverifiable()).singleElement().satisfies(reason -> assertThat(reason)
                .startsWith(topics.commands() + "-0: records 0..").contains("no checkpoint covers them"));
    }
}
