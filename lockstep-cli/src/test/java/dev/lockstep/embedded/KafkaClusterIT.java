package dev.lockstep.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Three KRaft nodes in child JVMs: a topic of three replicas, two in sync, keeps every record an
 * {@code acks=all} producer was told is written when its partition's leader is killed with
 * SIGKILL; the killed node, started again on its data, rejoins the in-sync replicas.
 */
class KafkaClusterIT {

    @Test
    void aKilledLeaderLosesNoAcknowledgedRecordAndRejoinsWhenStartedAgain() throws Exception {
        Path dir = Files.createTempDirectory("lockstep-cluster");
        try (KafkaCluster cluster = KafkaCluster.start(3, dir);
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            assertThat(cluster.nodes()).extracting(node -> cluster.pid(node.id()).isPresent()).containsOnly(true);
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 3).configs(Map.of("min.insync.replicas", "2"))))
                    .all().get(30, TimeUnit.SECONDS);
            List<String> written = new ArrayList<>();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000),
                    new StringSerializer(), new StringSerializer())) {
                send(producer, written, 0, 50);
                int leader = partition(admin).leader().id();
                cluster.kill(leader);
                assertThat(cluster.pid(leader)).isEmpty();
                send(producer, written, 50, 100);
                assertThat(partition(admin).leader().id()).as("a new leader, from the in-sync replicas")
                        .isNotEqualTo(leader);

                cluster.restart(leader);
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                        assertThat(partition(admin).isr()).as("the killed node caught up").hasSize(3));
            }
            assertThat(readAll(cluster.bootstrapServers())).containsExactlyElementsOf(written);
        }
    }

    private static void send(KafkaProducer<String, String> producer, List<String> written, int from, int to)
            throws Exception {
        for (int i = from; i < to; i++) {
            String value = "order-" + i;
            producer.send(new ProducerRecord<>("orders", "k", value)).get(60, TimeUnit.SECONDS);
            written.add(value);
        }
    }

    private static TopicPartitionInfo partition(Admin admin) throws Exception {
        TopicDescription description = admin.describeTopics(Set.of("orders")).allTopicNames().get(30, TimeUnit.SECONDS)
                .get("orders");
        return description.partitions().get(0);
    }

    private static List<String> readAll(String bootstrap) {
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap,
                "isolation.level", "read_committed"), new StringDeserializer(), new StringDeserializer())) {
            TopicPartition partition = new TopicPartition("orders", 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            while (consumer.position(partition) < end) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofSeconds(1))) {
                    read.add(record.value());
                }
            }
        }
        return read;
    }
}
