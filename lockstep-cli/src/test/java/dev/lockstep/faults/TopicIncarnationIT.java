package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The command topic under the same name, but a new incarnation: dev restarted with a new broker
 * against the same database, and the topic deleted and created again under a running worker.
 * Held leases stay held with their tokens, new tokens are greater, nothing is dead-lettered.
 */
class TopicIncarnationIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final List<String> HELD = List.of("job-a", "job-b", "job-c", "job-d");

    private static TopicNames topics(String name) {
        return env.topics().suffixed("-" + name);
    }

    private static RunningWorker worker(KafkaSettings kafka, TopicNames topics) {
        return env.startWorker(WorkerSettings.defaults(kafka).withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("incarnation-" + topics.commands()));
    }

    /** Acquires every resource of {@link #HELD} for "holder"; returns their tokens. */
    private static Map<String, Long> acquireAll(Wire wire) {
        Map<String, Long> tokens = new HashMap<>();
        for (String resource : HELD) {
            JsonNode reply = wire.call(acquire(newId(), resource, "holder", 600));
            assertThat(reply.path("outcome").asText()).isEqualTo("acquired");
            tokens.put(resource, reply.path("lock").path("fencing_token").asLong());
        }
        return tokens;
    }

    private static void assertCarriedOver(Wire wire, Map<String, Long> tokens) {
        long highest = tokens.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        for (String resource : HELD) {
            JsonNode held = wire.call(status(newId(), resource));
            assertThat(held.path("outcome").asText()).as(resource + " still held").isEqualTo("locked");
            assertThat(held.path("lock").path("owner").asText()).isEqualTo("holder");
            assertThat(held.path("lock").path("fencing_token").asLong()).isEqualTo(tokens.get(resource));
            assertThat(wire.call(acquire(newId(), resource, "thief", 30)).path("outcome").asText())
                    .isEqualTo("not_acquired");
        }
        JsonNode fresh = wire.call(acquire(newId(), "job-new", "someone", 30));
        assertThat(fresh.path("lock").path("fencing_token").asLong()).as("a new grant's token").isGreaterThan(highest);
        assertThat(wire.deadLetters()).as("nothing dead-lettered for the old topic's offsets").isEmpty();
    }

    @Test
    void aNewBrokerAgainstTheSameDatabaseKeepsLeasesAndTokens() throws Exception {
        TopicNames topics = topics("newbroker");
        Map<String, Long> tokens;
        try (EmbeddedKafka first = EmbeddedKafka.start(0, Files.createTempDirectory("lockstep-incarnation-1-"))) {
            KafkaSettings kafka = KafkaSettings.of(first.bootstrapServers());
            LockstepExtension.createTopics(kafka, topics);
            try (RunningWorker worker = worker(kafka, topics); Wire wire = new Wire(kafka, topics)) {
                tokens = acquireAll(wire);
                // More records on the old topic than the new one will have: its offsets must not leak over.
                for (int i = 0; i < 30; i++) {
                    wire.call(status(newId(), "job-a"));
                }
            }
        }
        try (EmbeddedKafka second = EmbeddedKafka.start(0, Files.createTempDirectory("lockstep-incarnation-2-"))) {
            KafkaSettings kafka = KafkaSettings.of(second.bootstrapServers());
            LockstepExtension.createTopics(kafka, topics);
            try (RunningWorker worker = worker(kafka, topics); Wire wire = new Wire(kafka, topics)) {
                assertCarriedOver(wire, tokens);
            }
        }
        assertThat(Histories.epochReasons(env, topics)).anyMatch(r -> r.contains("re-created"));
    }

    @Test
    void theCommandTopicDeletedAndCreatedAgainUnderARunningWorker() throws Exception {
        TopicNames topics = topics("recreated");
        KafkaSettings kafka = env.kafka();
        LockstepExtension.createTopics(kafka, topics);
        try (RunningWorker worker = worker(kafka, topics); Wire wire = new Wire(kafka, topics)) {
            Map<String, Long> tokens = acquireAll(wire);
            for (int i = 0; i < 30; i++) {
                wire.call(status(newId(), "job-b"));
            }
            try (Admin admin = Admin.create(kafka.with(Map.of()))) {
                admin.deleteTopics(List.of(topics.commands())).all().get();
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !admin.listTopics().names().get().contains(topics.commands()));
            }
            LockstepExtension.createTopics(kafka, topics);
            assertCarriedOver(wire, tokens);
        }
        assertThat(Histories.epochReasons(env, topics)).anyMatch(r -> r.contains("re-created"));
    }

}
