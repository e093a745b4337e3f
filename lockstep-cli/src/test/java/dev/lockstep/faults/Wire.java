package dev.lockstep.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.TopicCollector;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Commands and replies on topics of a test's own (its own names, or a broker of its own). */
final class Wire implements AutoCloseable {

    private final KafkaProducer<byte[], byte[]> producer;
    private final TopicNames topics;
    private final TopicCollector replies;
    private final TopicCollector deadLetters;

    Wire(KafkaSettings kafka, TopicNames topics) {
        this.producer = new KafkaProducer<>(kafka.with(Map.of("acks", "all")), new ByteArraySerializer(),
                new ByteArraySerializer());
        this.topics = topics;
        this.replies = TopicCollector.start(kafka, topics.replies());
        this.deadLetters = TopicCollector.start(kafka, topics.deadLetters());
    }

    void send(ObjectNode command) {
        try {
            producer.send(new ProducerRecord<>(topics.commands(),
                    command.path("resource").asText().getBytes(StandardCharsets.UTF_8),
                    command.toString().getBytes(StandardCharsets.UTF_8))).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("publishing a test command failed", e);
        }
    }

    /**
     * Sends the command to {@code partition}, whatever its key's partition (what a client does
     * with a {@code moved} reply), and returns its {@code answer}-th reply (from 1): the request ID's
     * replies before it answered earlier sends.
     */
    JsonNode call(ObjectNode command, int partition, int answer) {
        try {
            producer.send(new ProducerRecord<>(topics.commands(), partition,
                    command.path("resource").asText().getBytes(StandardCharsets.UTF_8),
                    command.toString().getBytes(StandardCharsets.UTF_8))).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("publishing a test command failed", e);
        }
        byte[] key = command.path("request_id").asText().getBytes(StandardCharsets.UTF_8);
        return Commands.parse(replies.await(r -> Arrays.equals(r.key(), key), answer).get(answer - 1).value());
    }

    JsonNode call(ObjectNode command) {
        send(command);
        return Commands.parse(await(command.path("request_id").asText(), 1).get(0).value());
    }

    List<ConsumerRecord<byte[], byte[]>> await(String requestId, int count) {
        byte[] key = requestId.getBytes(StandardCharsets.UTF_8);
        return replies.await(r -> Arrays.equals(r.key(), key), count);
    }

    List<ConsumerRecord<byte[], byte[]>> deadLetters() {
        return deadLetters.all();
    }

    @Override
    public void close() {
        replies.close();
        deadLetters.close();
        producer.close();
    }
}
