package dev.lockstep.cli;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import java.nio.file.Path;
import java.util.Map;
import java.lang.reflect.Field;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/** How to reach Kafka and which topics to use; shared by every command that talks to Kafka. */
final class KafkaOptions {

    static final String BOOTSTRAP_SERVERS = "--bootstrap-servers";

    // No annotated default: a running lockstep dev's broker comes before the built-in one (ConfigDefaults).
    @Option(names = BOOTSTRAP_SERVERS, paramLabel = "HOST:PORT,...",
            description = "Kafka bootstrap servers (env LOCKSTEP_BOOTSTRAP_SERVERS). Default: the broker of a running "
                    + "lockstep dev, else " + KafkaSettings.DEFAULT_BOOTSTRAP + ".")
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

    /** The bootstrap option of these options (bench has one of its own: without it, bench starts a broker). */
    static boolean isBootstrapServers(OptionSpec option) {
        return option.longestName().equals(BOOTSTRAP_SERVERS) && option.userObject() instanceof Field field
                && field.getDeclaringClass() == KafkaOptions.class;
    }

    KafkaSettings settings() {
        String bootstrap = bootstrapServers != null ? bootstrapServers : KafkaSettings.DEFAULT_BOOTSTRAP;
        return new KafkaSettings(bootstrap, kafkaConfig == null ? Map.of() : KafkaSettings.readProperties(kafkaConfig));
    }

    TopicNames topics() {
        return new TopicNames(commandTopic, replyTopic, deadLetterTopic, eventsTopic);
    }
}
