package dev.lockstep.cli;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.client.LockTimeoutException;
import dev.lockstep.core.Command;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** What every lock command shares: the connection, the timeout, and how a reply becomes output. */
final class ClientOptions {

    @Mixin
    KafkaOptions kafka;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--timeout", paramLabel = "SECONDS", defaultValue = "10",
            description = "How long to wait for the reply. Default: ${DEFAULT-VALUE}.")
    long timeoutSeconds;

    /**
     * A one-shot command's clients report no metrics over JMX (Kafka's default reporter): registering
     * each client's metrics as MBeans took ~0.09 s of a command's ~0.8 s, for MBeans nobody could read
     * before the process exits (docs/benchmarks.md#a-cli-command). {@code --kafka-config} may set them.
     */
    private static final Map<String, String> ONE_SHOT = Map.of("metric.reporters", "");

    /** The client settings these options describe. */
    LockClientSettings settings() {
        return LockClientSettings.defaults(kafka.settings().withDefaults(ONE_SHOT)).withTopics(kafka.topics())
                .withRequestTimeout(Duration.ofSeconds(timeoutSeconds));
    }

    /** Sends one command through the client library, prints the reply JSON, and maps its outcome to the exit code. */
    int call(Command command) {
        Logging.quietKafka();
        try (LockClient client = LockClient.start(settings())) {
            ReplyMessage reply = client.blocking().send(command);
            spec.commandLine().getOut().println(reply.json());
            spec.commandLine().getOut().flush();
            return ExitCodes.of(reply.reply().outcome());
        } catch (LockTimeoutException e) {
            spec.commandLine().getErr().println("lockstep: " + e.getMessage() + " (is a worker running?)");
            return ExitCodes.TIMEOUT;
        }
    }
}
