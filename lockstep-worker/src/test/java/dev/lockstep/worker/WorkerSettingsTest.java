package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.CheckpointPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkerSettingsTest {

    private static final KafkaSettings KAFKA = KafkaSettings.of("127.0.0.1:9092");

    @Test
    void theDefaultReplyTopicMustBeAllowed() {
        assertThatThrownBy(() -> new WorkerSettings(KAFKA, TopicNames.DEFAULT, "g",
                new TopicAllowList(List.of("lock.replies.*")), Limits.defaults(), Retention.DEFAULT, 4, false,
                CheckpointPolicy.DEFAULT, WorkerSettings.DEFAULT_STALL_TIMEOUT,
                WorkerSettings.DEFAULT_TRANSACTION_LIMIT))
                .hasMessageContaining("not on the reply allow-list");
    }

    @Test
    void theAllowListMustNotOpenTheCommandTopic() {
        assertThatThrownBy(() -> new WorkerSettings(KAFKA, TopicNames.DEFAULT, "g",
                new TopicAllowList(List.of("lock.*")), Limits.defaults(), Retention.DEFAULT, 4, false,
                CheckpointPolicy.DEFAULT, WorkerSettings.DEFAULT_STALL_TIMEOUT,
                WorkerSettings.DEFAULT_TRANSACTION_LIMIT))
                .hasMessageContaining("must not allow the command, dead-letter or events topic");
    }

    @Test
    void theAllowListMustNotOpenTheEventsTopic() {
        assertThatThrownBy(() -> new WorkerSettings(KAFKA, TopicNames.DEFAULT, "g",
                new TopicAllowList(List.of("lock.replies", "lock.events")), Limits.defaults(), Retention.DEFAULT, 4,
                false, CheckpointPolicy.DEFAULT, WorkerSettings.DEFAULT_STALL_TIMEOUT,
                WorkerSettings.DEFAULT_TRANSACTION_LIMIT)).hasMessageContaining("must not allow the command, dead-letter or events topic");
    }

    @Test
    void checkpointsAreCheckedWhenBuilt() {
        assertThatThrownBy(() -> new CheckpointPolicy(Duration.ofMillis(999), 3))
                .hasMessageContaining("--checkpoint-interval must be at least 1 second");
        assertThatThrownBy(() -> new CheckpointPolicy(Duration.ofHours(1), -1))
                .hasMessageContaining("--checkpoints-kept must not be negative");
        assertThat(new CheckpointPolicy(Duration.ZERO, 0).enabled()).isFalse();
        assertThat(CheckpointPolicy.DEFAULT.enabled()).isTrue();
    }

    @Test
    void limitsRejectNonsense() {
        assertThatThrownBy(() -> new Limits(Duration.ZERO, 16384)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Limits(Duration.ofSeconds(60), 10)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRequestRetentionBelowTheMinimumIsRefused() {
        assertThatThrownBy(() -> new Retention(Duration.ofSeconds(0), Duration.ofSeconds(30), 1000))
                .hasMessageContaining("--request-retention must be at least 300 seconds");
        assertThatThrownBy(() -> new Retention(Duration.ofSeconds(299), Duration.ofSeconds(30), 1000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(new Retention(Duration.ofSeconds(300), Duration.ofSeconds(30), 1000).requests())
                .isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void secretsAreMaskedInLogs() {
        KafkaSettings kafka = new KafkaSettings("b:9092", Map.of("sasl.jaas.config", "user=x password=y",
                "ssl.truststore.password", "pw", "security.protocol", "SASL_SSL"));
        assertThat(kafka.toString()).doesNotContain("password=y").doesNotContain("=pw").contains("SASL_SSL");
    }
}
