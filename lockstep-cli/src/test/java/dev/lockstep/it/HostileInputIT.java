package dev.lockstep.it;

import static dev.lockstep.testkit.Commands.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.protocol.Sha256;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The hostile-input corpus ({@code src/test/resources/hostile/corpus.jsonl}), one record after
 * another against one running worker: each gets the answer the corpus says (an {@code invalid}
 * reply naming the fields, a dead letter with a reason, or, for legal strings that only look
 * dangerous, a normal answer with the string stored verbatim), and a valid command sent right
 * after it on the same partition is answered correctly.
 */
class HostileInputIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static AtTheLimit limit;

    @BeforeAll
    static void startWorker() throws Exception {
        env.startWorker();
        limit = AtTheLimit.of(env.kafka(), env.topics().commands() + ".probe");
    }

    @AfterAll
    static void stopProbing() {
        limit.close();
    }

    @Test
    void everyHostileRecordIsAnsweredOrDeadLetteredAndTheWorkerCarriesOn() throws Exception {
        List<JsonNode> corpus = corpus();
        assertThat(corpus.stream().filter(e -> !e.path("expect").asText().equals("acquired")).count())
                .as("malformed or hostile records in the corpus").isGreaterThanOrEqualTo(100);
        Map<String, Integer> repliesPerRequest = new HashMap<>();
        int deadLetters = 0;
        for (JsonNode entry : corpus) {
            String label = entry.path("id").asText() + " (" + entry.path("what").asText() + ")";
            Integer partition = entry.has("partition") ? entry.get("partition").asInt() : null;
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(env.topics().commands(), partition, null,
                    key(entry), value(entry), List.of(headers(entry)));
            RecordMetadata sent;
            if (entry.has("at_limit")) {
                record = limit.grown(record, entry.get("at_limit").asText());
                sent = limit.send(record);
            } else {
                sent = env.send(record.topic(), partition, record.key(), record.value(), null,
                        record.headers().toArray());
            }
            byte[] value = record.value();
            switch (entry.path("expect").asText()) {
                case "dead_letter" -> {
                    deadLetters++;
                    ConsumerRecord<byte[], byte[]> dead = awaitDeadLetter(sent);
                    if (dead.headers().lastHeader(DeadLetterHeaders.ORIGINAL_VALUE_SHA256) != null) {
                        assertThat(Arrays.copyOf(value, dead.value().length)).as(label
                                + ": a dead letter cut to fit keeps the value's start").isEqualTo(dead.value());
                        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_VALUE_BYTES)).as(label)
                                .isEqualTo(Integer.toString(value.length));
                        assertThat(header(dead, DeadLetterHeaders.ORIGINAL_VALUE_SHA256)).as(label)
                                .isEqualTo(HexFormat.of().formatHex(Sha256.of(value)));
                    } else if (!DeadLetterHeaders.cut(dead.headers())) {
                        assertThat(dead.value()).as(label + ": dead letter keeps the value byte for byte").isEqualTo(value);
                    }
                    String reason = header(dead, "lockstep-error");
                    assertThat(reason).as(label + ": reason").isNotBlank().contains(entry.path("reason").asText());
                    if (entry.has("undelivered_reply")) {
                        assertThat(Commands.parse(header(dead, "lockstep-reply").getBytes(StandardCharsets.UTF_8))
                                .path("outcome").asText()).as(label + ": the undelivered reply")
                                .isEqualTo(entry.path("undelivered_reply").asText());
                        assertThat(header(dead, "lockstep-source")).as(label + ": made from the worker's mark, "
                                + "a later record of the same partition").startsWith(sent.topic() + "-"
                                + sent.partition() + "@").isNotEqualTo(position(sent));
                    }
                }
                case "moved" -> {
                    // Not decided there, nothing stored: sent to the partition its key belongs on.
                    JsonNode reply = awaitReply(value, repliesPerRequest);
                    assertThat(reply.path("outcome").asText()).as(label + ": " + reply).isEqualTo("moved");
                    assertThat(reply.path("partition").asInt()).as(label).isEqualTo(ResourcePartition.of(
                            entry.path("key").asText(), LockstepExtension.PARTITIONS));
                    assertThat(reply.path("detail").asText()).as(label).contains("partitioner=murmur2_random");
                }
                case "invalid" -> {
                    JsonNode reply = awaitReply(value, repliesPerRequest);
                    assertThat(reply.path("outcome").asText()).as(label + ": " + reply).isEqualTo("invalid");
                    List<String> fields = StreamSupport.stream(reply.path("problem").path("errors").spliterator(), false)
                            .map(e -> e.path("field").asText()).toList();
                    List<String> expected = StreamSupport.stream(entry.path("fields").spliterator(), false)
                            .map(JsonNode::asText).toList();
                    assertThat(fields).as(label + ": fields named in " + reply).containsAll(expected);
                }
                default -> {
                    JsonNode reply = awaitReply(value, repliesPerRequest);
                    assertThat(reply.path("outcome").asText()).as(label + ": " + reply)
                            .isEqualTo(entry.path("expect").asText());
                    String requestId = reply.path("request_id").asText();
                    JsonNode first = Commands.parse(env.awaitReplies(requestId, 1).get(0).value());
                    // Request IDs are scoped per partition: on another resource's partition it is another request.
                    if (repliesPerRequest.get(requestId) > 1 && first.path("resource").equals(reply.path("resource"))) {
                        assertThat(reply).as(label + ": a retry gets the first reply again").isEqualTo(first);
                    }
                    assertStoredVerbatim(Commands.parse(value).path("resource").asText(), label);
                }
            }
            assertNextCommandAnswered(sent.partition(), entry.path("id").asText());
        }
        assertThat(env.deadLetters().all()).as("dead letters, exactly one per record that could not be answered")
                .hasSize(deadLetters);
    }

    /** A valid command right after the hostile one, on the same partition: the partition was not stalled. */
    private static void assertNextCommandAnswered(int partition, String id) {
        // A resource that belongs on that partition (the worker checks the record's partition against its key).
        String resource = IntStream.iterate(0, i -> i + 1).mapToObj(i -> "after-" + id + "-" + i)
                .filter(r -> Utils.toPositive(Utils.murmur2(r.getBytes(StandardCharsets.UTF_8)))
                        % LockstepExtension.PARTITIONS == partition)
                .findFirst().orElseThrow();
        String requestId = "next-" + id;
        byte[] key = resource.getBytes(StandardCharsets.UTF_8);
        env.send(env.topics().commands(), partition, key,
                acquire(requestId, resource, "well-behaved", 30).toString().getBytes(StandardCharsets.UTF_8), null);
        JsonNode reply = env.awaitReply(requestId);
        assertThat(reply.path("outcome").asText()).as("the command after " + id).isEqualTo("acquired");
        assertThat(reply.path("lock").path("owner").asText()).isEqualTo("well-behaved");
    }

    private static JsonNode awaitReply(byte[] value, Map<String, Integer> repliesPerRequest) {
        String requestId = Commands.parse(value).path("request_id").asText();
        int count = repliesPerRequest.merge(requestId, 1, Integer::sum);
        List<ConsumerRecord<byte[], byte[]>> replies = env.awaitReplies(requestId, count);
        return Commands.parse(replies.get(count - 1).value());
    }

    /** The dead letter of the record sent: made from it, or from the worker's mark of its undeliverable reply. */
    private static ConsumerRecord<byte[], byte[]> awaitDeadLetter(RecordMetadata sent) {
        String source = position(sent);
        return env.deadLetters().await(r -> source.equals(header(r, "lockstep-source"))
                || source.equals(header(r, "lockstep-reply-of")), 1).get(0);
    }

    private static String position(RecordMetadata sent) {
        return sent.topic() + "-" + sent.partition() + "@" + sent.offset();
    }

    private static void assertStoredVerbatim(String resource, String label) throws Exception {
        try (Connection c = env.jdbc(); PreparedStatement st = c.prepareStatement(
                "SELECT count(*) FROM distributed_locks WHERE resource = ?")) {
            st.setString(1, resource);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                assertThat(rs.getInt(1)).as(label + ": stored as one row, verbatim").isEqualTo(1);
            }
        }
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static List<JsonNode> corpus() throws IOException {
        List<JsonNode> entries = new ArrayList<>();
        try (InputStream in = HostileInputIT.class.getResourceAsStream("/hostile/corpus.jsonl");
                BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isBlank()) {
                    entries.add(MAPPER.readTree(line));
                }
            }
        }
        return entries;
    }

    private static String placeholders(String text) {
        return text.replace("{COMMANDS}", env.topics().commands())
                .replace("{DLQ}", env.topics().deadLetters())
                .replace("{REPLIES}", env.topics().replies());
    }

    private static byte[] key(JsonNode entry) {
        if (entry.has("key_hex")) {
            return HexFormat.of().parseHex(entry.get("key_hex").asText());
        }
        return entry.has("key") ? entry.get("key").asText().getBytes(StandardCharsets.UTF_8) : null;
    }

    private static byte[] value(JsonNode entry) {
        if (entry.has("value_hex")) {
            return HexFormat.of().parseHex(entry.get("value_hex").asText());
        }
        if (entry.has("value_pad")) {
            JsonNode pad = entry.get("value_pad");
            String prefix = placeholders(pad.path("prefix").asText().replace("$RID", requestIdOf(entry))
                    .replace("$RES", entry.path("key").asText()));
            String suffix = pad.path("suffix").asText();
            int times = pad.has("total") ? pad.get("total").asInt() - prefix.length() - suffix.length()
                    : pad.get("times").asInt();
            return (prefix + pad.get("repeat").asText().repeat(times) + suffix).getBytes(StandardCharsets.UTF_8);
        }
        return placeholders(entry.path("value").asText()).getBytes(StandardCharsets.UTF_8);
    }

    private static String requestIdOf(JsonNode entry) {
        return "h-" + entry.path("id").asText().substring(1);
    }

    private static Header[] headers(JsonNode entry) {
        List<Header> headers = new ArrayList<>();
        entry.path("headers").fields().forEachRemaining(h -> headers.add(new RecordHeader(h.getKey(),
                placeholders(h.getValue().asText()).getBytes(StandardCharsets.UTF_8))));
        entry.path("headers_hex").fields().forEachRemaining(h -> headers.add(new RecordHeader(h.getKey(),
                HexFormat.of().parseHex(h.getValue().asText()))));
        return headers.toArray(Header[]::new);
    }
}
