package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.kafka.KafkaSettings;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

class WorkerClientsTest {

    private static Map<String, Object> consumer(Map<String, String> properties) {
        return WorkerClients.consumerConfig(WorkerSettings.defaults(new KafkaSettings("127.0.0.1:1", properties)));
    }

    @Test
    void aDeadWorkerIsOutOfItsGroupInSecondsUnlessTheOperatorSaysOtherwise() {
        assertThat(consumer(Map.of())).containsEntry("session.timeout.ms", 6_000)
                .containsEntry("heartbeat.interval.ms", 1_000).containsEntry("max.poll.interval.ms", 30_000);
        assertThat(consumer(Map.of("session.timeout.ms", "10000"))).containsEntry("session.timeout.ms", "10000");
    }

    /** The consumer protocol of KIP-848 refuses the client-side timeouts: the broker's group settings decide. */
    @Test
    void withTheConsumerGroupProtocolTheBrokerDecidesTheTimeouts() {
        Map<String, Object> config = consumer(Map.of("group.protocol", "consumer"));
        assertThat(config).doesNotContainKeys("session.timeout.ms", "heartbeat.interval.ms");
        // The Kafka client accepts it (it refuses either key with this protocol); nothing connects yet.
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer()).close();
    }
}
