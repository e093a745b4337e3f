package dev.lockstep.cli;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine.Option;

/** How to reach Kafka and which topics to use; shared by every command that talks to Kafka. */
final class KafkaOptions {

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...", defaultValue = KafkaSettings.DEFAULT_BOOTSTRAP,
            description = "Kafka bootstrap servers (env LOCKSTEP_BOOTSTRAP_SERVERS; default ${DEFAULT-VALUE}).")
    String bootstrapServers;

    @Option(names = "--kafka-config", paramLabel = "FILE",
            description = "Kafka client properties (SASL, TLS, ...) passed to every Kafka client.")
    Path kafkaConfig;

    @Option(names = "--command-topic", defaultValue = "lock.commands", description = "Default: ${DEFAULT-VALUE}.")
    String commandTopic;

    @Option(names = "--reply-topic", defaultValue = "lock.replies", description = "Default: ${DEFAULT-VALUE}.")
    String replyTopic;

    @Option(names = "--dead-letter-topic", defaultValue = "lock.commands.dlq", description = "Default: ${DEFAULT-VALUE}.")
    String deadLetterTopic;

    @Option(names = "--events-topic", defaultValue = "lock.events",
            description = "Lease events; as many partitions as the command topic. Default: ${DEFAULT-VALUE}.")
    String eventsTopic;

    KafkaSettings settings() {
        return new KafkaSettings(bootstrapServers, kafkaConfig == null ? Map.of() : KafkaSettings.readProperties(kafkaConfig));
    }

    TopicNames topics() {
        return new TopicNames(commandTopic, replyTopic, deadLetterTopic, eventsTopic);
    }
}
