package dev.lockstep.it;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.status;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.TopicCollector;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Idempotency, dead letters, reply routing and time, against a real worker, broker and database. */
class DeliveryIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static String altReplies;
    private static String foreignTopic;

    @BeforeAll
    static void setUp() throws Exception {
        altReplies = env.topics().replies() + ".alt";
        foreignTopic = "payments." + env.topics().replies();
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(altReplies, 2, (short) 1), new NewTopic(foreignTopic, 1, (short) 1)))
                    .all().get();
        }
        env.startWorker();
    }

    private static Header header(String name, byte[] value) {
        return new RecordHeader(name, value);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static long count(String sql) throws Exception {
        try (Connection c = env.jdbc(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void theSameRequestIdTwiceIsAppliedOnceAndAnsweredIdentically() throws Exception {
        ObjectNode command = acquire(newId(), "idem-1", "owner-a", 60);
        env.send(command);
        env.send(command);
        List<ConsumerRecord<byte[], byte[]>> replies = env.awaitReplies(command.path("request_id").asText(), 2);
        assertThat(replies.get(0).value()).isEqualTo(replies.get(1).value());
        assertThat(count("SELECT count(*) FROM request_log WHERE request_id = '"
                + command.path("request_id").asText() + "'")).isEqualTo(1);
        JsonNode other = env.call(acquire(newId(), "idem-1", "owner-a", 60));
        assertThat(other.path("lock").path("fencing_token"))
                .as("the same owner's lease, extended: the token of the one grant")
                .isEqualTo(Commands.parse(replies.get(0).value()).path("lock").path("fencing_token"));
    }

    @Test
    void aReusedRequestIdWithAnotherBodyDoesNotGetTheOtherReply() {
        String id = newId();
        assertThat(env.call(acquire(id, "idem-2", "owner-a", 60)).path("outcome").asText()).isEqualTo("acquired");
        env.send(acquire(id, "idem-2", "owner-b", 60));
        List<ConsumerRecord<byte[], byte[]>> replies = env.awaitReplies(id, 2);
        JsonNode second = Commands.parse(replies.get(1).value());
        assertThat(second.path("outcome").asText()).isEqualTo("invalid");
        assertThat(second.path("problem").path("errors").get(0).path("field").asText()).isEqualTo("request_id");
    }

    @Test
    void anUnparseableRecordIsDeadLetteredAndTheNextCommandStillAnswered() {
        byte[] garbage = {'{', 'n', 'o', 't', (byte) 0xFF, ' ', 'j', 's', 'o', 'n'};
        byte[] key = "dlq-1".getBytes(StandardCharsets.UTF_8);
        env.send(env.topics().commands(), key, garbage, null);
        ConsumerRecord<byte[], byte[]> dead = env.deadLetters()
                .await(r -> Arrays.equals(r.key(), key), 1).get(0);
        assertThat(dead.value()).isEqualTo(garbage);
        assertThat(text(dead.headers().lastHeader("lockstep-error").value())).isEqualTo("record value is not valid UTF-8");
        assertThat(env.call(status(newId(), "dlq-1")).path("outcome").asText()).isEqualTo("not_found");
    }

    @Test
    void aRecordWithoutRequestIdIsDeadLettered() {
        String value = "{\"type\":\"status\",\"resource\":\"dlq-2\"}";
        env.send("dlq-2", value);
        ConsumerRecord<byte[], byte[]> dead = env.deadLetters()
                .await(r -> text(r.value()).equals(value), 1).get(0);
        assertThat(text(dead.headers().lastHeader("lockstep-error").value())).isEqualTo("request_id is missing");
    }

    @Test
    void aReplyToOutsideTheAllowListIsDeadLetteredAndNothingIsWrittenThere() throws Exception {
        ObjectNode command = status(newId(), "route-1").put("reply_to", foreignTopic);
        env.send(command);
        ConsumerRecord<byte[], byte[]> dead = env.deadLetters()
                .await(r -> text(r.value()).equals(command.toString()), 1).get(0);
        assertThat(text(dead.headers().lastHeader("lockstep-error").value())).contains("not on the allow-list");
        ObjectNode viaHeader = status(newId(), "route-1");
        env.send("route-1", viaHeader.toString(),
                header("kafka_replyTopic", foreignTopic.getBytes(StandardCharsets.UTF_8)));
        env.deadLetters().await(r -> text(r.value()).equals(viaHeader.toString()), 1);
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            var end = admin.listOffsets(Map.of(new org.apache.kafka.common.TopicPartition(foreignTopic, 0),
                    org.apache.kafka.clients.admin.OffsetSpec.latest())).all().get();
            assertThat(end.values()).allSatisfy(info -> assertThat(info.offset()).isZero());
        }
    }

    @Test
    void aKeyThatIsNotTheResourceIsInvalid() {
        ObjectNode command = status(newId(), "key-1");
        env.send("another-key", command.toString());
        JsonNode reply = env.awaitReply(command.path("request_id").asText());
        assertThat(reply.path("outcome").asText()).isEqualTo("invalid");
        assertThat(reply.path("problem").path("errors").get(0).path("message").asText())
                .isEqualTo("must equal the record key");
    }

    @Test
    void springRequestReplyHeadersAreHonoured() throws Exception {
        byte[] correlation = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
        ObjectNode command = status(newId(), "spring-1");
        env.send("spring-1", command.toString(),
                header("kafka_replyTopic", altReplies.getBytes(StandardCharsets.UTF_8)),
                header("kafka_replyPartition", ByteBuffer.allocate(4).putInt(1).array()),
                header("kafka_correlationId", correlation));
        try (TopicCollector alt = env.collect(altReplies)) {
            ConsumerRecord<byte[], byte[]> reply = alt.await(r -> true, 1).get(0);
            assertThat(reply.partition()).isEqualTo(1);
            assertThat(reply.headers().lastHeader("kafka_correlationId").value()).isEqualTo(correlation);
            assertThat(Commands.parse(reply.value()).path("request_id").asText())
                    .isEqualTo(command.path("request_id").asText());
        }
    }

    @Test
    void aForgedProducerTimestampCannotExpireALease() {
        long year2100 = Instant.parse("2100-01-01T00:00:00Z").toEpochMilli();
        ObjectNode first = acquire(newId(), "time-1", "owner-a", 60);
        env.send(env.topics().commands(), "time-1".getBytes(StandardCharsets.UTF_8),
                first.toString().getBytes(StandardCharsets.UTF_8), year2100);
        JsonNode granted = env.awaitReply(first.path("request_id").asText());
        Instant acquiredAt = Instant.parse(granted.path("lock").path("acquired_at").asText());
        assertThat(Duration.between(acquiredAt, Instant.now()).abs()).isLessThan(Duration.ofMinutes(1));
        ObjectNode thief = acquire(newId(), "time-1", "thief", 60);
        env.send(env.topics().commands(), "time-1".getBytes(StandardCharsets.UTF_8),
                thief.toString().getBytes(StandardCharsets.UTF_8), year2100 + 1000);
        assertThat(env.awaitReply(thief.path("request_id").asText()).path("outcome").asText())
                .isEqualTo("not_acquired");
    }

    @Test
    void aDatabaseOutageDelaysRepliesButLosesNothing() throws Exception {
        String database = env.database().jdbcUrl().replaceAll(".*/([^/?]+).*", "$1");
        ObjectNode command = acquire(newId(), "outage-1", "owner-a", 60);
        try (Connection admin = env.serverAdmin(); Statement st = admin.createStatement()) {
            st.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS false");
            try {
                st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + database + "'");
                env.send(command);
                Thread.sleep(4_500); // longer than the pool's connection timeout: batches fail and are retried
                assertThat(env.replies().matching(r -> text(r.key()).equals(command.path("request_id").asText())))
                        .isEmpty();
            } finally {
                st.execute("ALTER DATABASE " + database + " ALLOW_CONNECTIONS true");
            }
        }
        assertThat(env.awaitReply(command.path("request_id").asText()).path("outcome").asText()).isEqualTo("acquired");
    }
}
