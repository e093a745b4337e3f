package dev.lockstep.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaSettingsTest {

    private final KafkaSettings settings = new KafkaSettings("broker:9092",
            Map.of("linger.ms", "20", "acks", "0", "bootstrap.servers", "elsewhere:9092", "sasl.mechanism", "PLAIN"));

    @Test
    void operatorPropertiesOverrideTuningButNotCorrectnessSettings() {
        Map<String, Object> merged = settings.with(Map.of("linger.ms", 1, "max.poll.records", 500), Map.of("acks", "all"));

        assertThat(merged).containsEntry("linger.ms", "20")
                .containsEntry("max.poll.records", 500)
                .containsEntry("acks", "all")
                .containsEntry("sasl.mechanism", "PLAIN")
                .containsEntry("bootstrap.servers", "broker:9092");
    }

    @Test
    void defaultsGoUnderTheClientProperties() {
        KafkaSettings withDefaults = settings.withDefaults(Map.of("linger.ms", "0", "metric.reporters", ""));

        assertThat(withDefaults.clientProperties()).containsEntry("linger.ms", "20").containsEntry("metric.reporters", "")
                .containsEntry("sasl.mechanism", "PLAIN");
        assertThat(withDefaults.bootstrapServers()).isEqualTo("broker:9092");
    }

    @Test
    void secretsAreMaskedInToString() {
        KafkaSettings secret = new KafkaSettings("b:1", Map.of("sasl.jaas.config", "user pass", "ssl.truststore.password", "x"));

        assertThat(secret.toString()).doesNotContain("user pass").doesNotContain("=x").contains("****");
    }
}
