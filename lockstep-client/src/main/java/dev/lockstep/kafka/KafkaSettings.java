package dev.lockstep.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * How to reach the Kafka cluster: bootstrap servers plus any client properties (SASL, TLS,
 * timeouts) passed through unchanged to every producer, consumer and admin client.
 */
public record KafkaSettings(String bootstrapServers, Map<String, String> clientProperties) {

    public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";

    private static final Set<String> SECRET_MARKERS = Set.of("password", "secret", "jaas", "token", "key");

    public KafkaSettings {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        if (bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("bootstrap servers must not be empty");
        }
        clientProperties = Map.copyOf(clientProperties);
    }

    public static KafkaSettings of(String bootstrapServers) {
        return new KafkaSettings(bootstrapServers, Map.of());
    }

    /** Reads client properties from a Java properties file, e.g. SASL or TLS settings. */
    public static Map<String, String> readProperties(Path file) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read Kafka client properties from " + file + " (check --kafka-config)", e);
        }
        Map<String, String> map = new HashMap<>();
        props.stringPropertyNames().forEach(k -> map.put(k, props.getProperty(k)));
        return map;
    }

    /** These settings with {@code defaults} under the client properties: a property given wins over its default. */
    public KafkaSettings withDefaults(Map<String, String> defaults) {
        Map<String, String> merged = new HashMap<>(defaults);
        merged.putAll(clientProperties);
        return new KafkaSettings(bootstrapServers, merged);
    }

    /** The client properties with our own settings on top; the bootstrap servers always win. */
    public Map<String, Object> with(Map<String, Object> own) {
        return with(Map.of(), own);
    }

    /**
     * {@code tuning} under the client properties (an operator may change batch sizes, linger or
     * compression for their cluster), {@code own} over them (settings correctness depends on,
     * such as acks or isolation), the bootstrap servers over all.
     */
    public Map<String, Object> with(Map<String, Object> tuning, Map<String, Object> own) {
        Map<String, Object> merged = new HashMap<>(tuning);
        merged.putAll(clientProperties);
        merged.putAll(own);
        merged.put("bootstrap.servers", bootstrapServers);
        return merged;
    }

    /** For logs: the property names and their values, secrets masked. */
    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        clientProperties.forEach((k, v) -> shown.put(k,
                SECRET_MARKERS.stream().anyMatch(k.toLowerCase(Locale.ROOT)::contains) ? "****" : v));
        return "KafkaSettings[bootstrap=" + bootstrapServers + ", client=" + shown + "]";
    }
}
