package dev.lockstep.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Verdict;
import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpecs;
import dev.lockstep.worker.WorkerSettings;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker and a service under exactly the ACLs docs/security.md gives (read from it), on a
 * broker of this test's own with an authorizer and SASL/PLAIN: the worker starts, answers, marks
 * an undeliverable reply in the command topic and dead-letters it; the service takes and releases
 * a lock through its own reply topic, and cannot write a reply topic or read another's.
 */
class AclIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final String USERS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "user_admin=\"admin-secret\" user_lockstep=\"worker-secret\" user_payments=\"service-secret\";";

    private static KafkaSettings as(int port, String user, String password) {
        return new KafkaSettings("127.0.0.1:" + port, Map.of("security.protocol", "SASL_PLAINTEXT",
                "sasl.mechanism", "PLAIN", "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule"
                        + " required username=\"" + user + "\" password=\"" + password + "\";"));
    }

    @Test
    void theWorkerAndAServiceWorkUnderTheDocumentedAclsAndNoMore() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path dir = Files.createTempDirectory("lockstep-acl-kafka");
        try (EmbeddedKafka broker = EmbeddedKafka.start(0, dir, Map.of(
                "listeners", "SASL_PLAINTEXT://127.0.0.1:" + port,
                "advertised.listeners", "SASL_PLAINTEXT://127.0.0.1:" + port,
                "listener.security.protocol.map", "SASL_PLAINTEXT:SASL_PLAINTEXT",
                "sasl.enabled.mechanisms", "PLAIN",
                "listener.name.sasl_plaintext.plain.sasl.jaas.config", USERS,
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
                // The broker's own PLAINTEXT and controller listeners are anonymous.
                "super.users", "User:admin;User:ANONYMOUS"))) {
            KafkaSettings admin = as(port, "admin", "admin-secret");
            TopicNames service = new TopicNames("lock.commands", "lock.replies.payments", "lock.commands.dlq",
                    "lock.events");
            try (Admin cluster = Admin.create(admin.with(Map.of()))) {
                new TopicApplier(cluster).apply(TopicSpecs.renamed(TopicNames.DEFAULT, 3, (short) 1));
                cluster.createTopics(List.of(new NewTopic(service.replies(), 3, (short) 1))).all().get();
                List<AclBinding> acls = DocumentedAcls.read(Path.of("..", "docs", "security.md"));
                assertThat(acls).as("the ACLs docs/security.md gives").hasSizeGreaterThanOrEqualTo(10);
                cluster.createAcls(acls).all().get();
            }
            KafkaSettings worker = as(port, "lockstep", "worker-secret");
            KafkaSettings payments = as(port, "payments", "service-secret");
            try (RunningWorker running = env.startWorker(WorkerSettings.defaults(worker), env.database());
                    LockClient client = LockClient.start(LockClientSettings.defaults(payments).withTopics(service)
                            .withRequestTimeout(Duration.ofSeconds(30)))) {
                Verdict acquired = client.blocking().acquire("acl-job", "payments-1", Duration.ofSeconds(60));
                assertThat(acquired).isInstanceOf(Verdict.Acquired.class);
                assertThat(client.blocking().release("acl-job", "payments-1", OptionalLong.empty()))
                        .isEqualTo(new Verdict.Released());

                // A reply to a topic that does not exist: the worker marks it in the command topic, then dead-letters it.
                try (KafkaProducer<byte[], byte[]> producer = producer(payments)) {
                    producer.send(new ProducerRecord<>("lock.commands", "acl-gone".getBytes(StandardCharsets.UTF_8),
                            ("{\"request_id\":\"acl-gone-1\",\"type\":\"status\",\"resource\":\"acl-gone\","
                                    + "\"reply_to\":\"lock.replies.gone\"}").getBytes(StandardCharsets.UTF_8))).get();
                }
                assertThat(deadLetters(admin)).as("dead-lettered from the worker's mark")
                        .anyMatch(value -> value.contains("acl-gone-1"));

                // What the service must not do.
                try (KafkaProducer<byte[], byte[]> producer = producer(payments)) {
                    assertThatThrownBy(() -> producer.send(new ProducerRecord<>("lock.replies",
                            "forged".getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8))).get())
                            .hasCauseInstanceOf(TopicAuthorizationException.class);
                }
                try (KafkaConsumer<byte[], byte[]> consumer = consumer(payments)) {
                    consumer.assign(List.of(new TopicPartition("lock.replies", 0)));
                    consumer.seekToBeginning(consumer.assignment());
                    assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(5)))
                            .isInstanceOf(TopicAuthorizationException.class);
                }
            }
        }
    }

    /** The dead letters' values, read as the admin. */
    private static List<String> deadLetters(KafkaSettings admin) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = consumer(admin)) {
            consumer.assign(List.of(new TopicPartition("lock.commands.dlq", 0)));
            consumer.seekToBeginning(consumer.assignment());
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                records.forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
                return !values.isEmpty();
            });
        }
        return values;
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaSettings kafka) {
        return new KafkaProducer<>(kafka.with(Map.of("acks", "all", "max.block.ms", 10_000)), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(KafkaSettings kafka) {
        return new KafkaConsumer<>(kafka.with(Map.of("enable.auto.commit", false)), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }
}
