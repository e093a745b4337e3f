package dev.lockstep.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.KafkaMessageListenerContainer;
import org.springframework.kafka.requestreply.ReplyingKafkaTemplate;
import org.springframework.kafka.requestreply.RequestReplyFuture;

/** Clients that know nothing of lockstep's library: Spring Kafka request-reply, and plain kafka-clients. */
class InteroperabilityIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @BeforeAll
    static void startWorker() {
        env.startWorker();
    }

    @Test
    void springReplyingKafkaTemplateWorksUnchanged() throws Exception {
        Map<String, Object> producerProps = env.kafka().with(Map.of());
        Map<String, Object> consumerProps = env.kafka().with(Map.of(ConsumerConfig.GROUP_ID_CONFIG, "spring-replies"));
        ContainerProperties containerProps = new ContainerProperties(env.topics().replies());
        KafkaMessageListenerContainer<byte[], byte[]> replies = new KafkaMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<>(consumerProps, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
                containerProps);
        ReplyingKafkaTemplate<byte[], byte[], byte[]> template = new ReplyingKafkaTemplate<>(
                new DefaultKafkaProducerFactory<>(producerProps, new ByteArraySerializer(), new ByteArraySerializer()),
                replies);
        template.setDefaultReplyTimeout(Duration.ofSeconds(30));
        template.start();
        try {
            assertThat(template.waitForAssignment(Duration.ofSeconds(30))).isTrue();
            String requestId = Commands.newId();
            byte[] command = Commands.acquire(requestId, "spring:1", "spring-app", 30).toString()
                    .getBytes(StandardCharsets.UTF_8);
            RequestReplyFuture<byte[], byte[], byte[]> future = template.sendAndReceive(
                    new ProducerRecord<>(env.topics().commands(), "spring:1".getBytes(StandardCharsets.UTF_8), command));
            ConsumerRecord<byte[], byte[]> reply = future.get(30, TimeUnit.SECONDS);
            JsonNode json = Commands.parse(reply.value());
            assertThat(json.path("request_id").asText()).isEqualTo(requestId);
            assertThat(json.path("outcome").asText()).isEqualTo("acquired");
            assertThat(json.path("lock").path("owner").asText()).isEqualTo("spring-app");
        } finally {
            template.stop();
        }
    }

    @Test
    void plainKafkaClientsFollowingTheProtocolDocument() {
        String requestId = Commands.newId();
        String command = "{\"request_id\":\"" + requestId + "\",\"type\":\"acquire\",\"resource\":\"raw:1\","
                + "\"owner\":\"raw-client\",\"ttl_seconds\":30}";
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(env.kafka().with(Map.of()),
                new StringDeserializer(), new StringDeserializer());
                KafkaProducer<String, String> producer = new KafkaProducer<>(env.kafka().with(Map.of("acks", "all")),
                        new StringSerializer(), new StringSerializer())) {
            // "Start reading before you publish."
            List<TopicPartition> partitions = consumer.partitionsFor(env.topics().replies()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position);
            // "Publish the command keyed by its resource."
            producer.send(new ProducerRecord<>(env.topics().commands(), "raw:1", command));
            producer.flush();
            // "Read the reply topic for a record keyed by your request_id."
            Optional<String> reply = Optional.empty();
            Instant deadline = Instant.now().plusSeconds(30);
            while (reply.isEmpty() && Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (requestId.equals(record.key())) {
                        reply = Optional.of(record.value());
                    }
                }
            }
            assertThat(reply).hasValueSatisfying(json -> assertThat(json)
                    .contains("\"outcome\":\"acquired\"").contains("\"owner\":\"raw-client\""));
        }
    }
}
