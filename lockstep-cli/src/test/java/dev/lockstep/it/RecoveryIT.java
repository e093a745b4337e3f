package dev.lockstep.it;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker that stops after applying records but before committing their offsets, and a worker
 * that then receives them again: nothing is applied twice, and the replies are sent again as
 * they were.
 */
class RecoveryIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final String GROUP = "recovering";

    /**
     * The leases and stored replies. Not the partitions' offsets: the worker ticks while a lease
     * is live, so they move on with ticks that change neither.
     */
    private static String snapshot() throws Exception {
        StringBuilder rows = new StringBuilder();
        try (Connection c = env.jdbc(); Statement st = c.createStatement()) {
            for (String sql : List.of(
                    "SELECT resource, owner, fencing_token, acquired_at, expires_at FROM distributed_locks ORDER BY 1",
                    "SELECT request_id, reply FROM request_log ORDER BY 1")) {
                try (ResultSet rs = st.executeQuery(sql)) {
                    while (rs.next()) {
                        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                            rows.append(rs.getString(i)).append('|');
                        }
                        rows.append('\n');
                    }
                }
            }
        }
        return rows.toString();
    }

    @Test
    void recordsDeliveredAgainWithoutACommittedOffsetAreNotAppliedTwice() throws Exception {
        List<ObjectNode> commands = new ArrayList<>();
        IntStream.range(0, 30).forEach(i -> {
            String resource = "job-" + (i % 6);
            commands.add(i % 3 == 2 ? release(newId(), resource, "runner-" + (i % 4))
                    : acquire(newId(), resource, "runner-" + (i % 4), 30));
        });
        List<byte[]> firstReplies = new ArrayList<>();
        try (RunningWorker first = env.startWorker(env.workerSettings().withGroupId(GROUP))) {
            commands.forEach(env::send);
            for (ObjectNode command : commands) {
                firstReplies.add(env.awaitReplies(command.path("request_id").asText(), 1).get(0).value());
            }
        }
        String applied = snapshot();

        // Put the group's committed offsets and the database's acknowledged offsets back to the
        // start, as if the worker had died after every batch's database commit but before any of
        // its replies was known to be acknowledged; then start it again.
        try (Connection c = env.jdbc(); Statement st = c.createStatement()) {
            st.executeUpdate("UPDATE partition_progress SET acked_offset = 0");
        }
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
            admin.describeTopics(List.of(env.topics().commands())).allTopicNames().get()
                    .get(env.topics().commands()).partitions()
                    .forEach(p -> start.put(new TopicPartition(env.topics().commands(), p.partition()),
                            new OffsetAndMetadata(0)));
            admin.alterConsumerGroupOffsets(GROUP, start).all().get();
        }
        try (RunningWorker restarted = env.startWorker(env.workerSettings().withGroupId(GROUP))) {
            for (int i = 0; i < commands.size(); i++) {
                List<ConsumerRecord<byte[], byte[]>> replies =
                        env.awaitReplies(commands.get(i).path("request_id").asText(), 2);
                assertThat(replies.get(1).value()).isEqualTo(firstReplies.get(i));
            }
        }
        assertThat(snapshot()).isEqualTo(applied);
    }
}
