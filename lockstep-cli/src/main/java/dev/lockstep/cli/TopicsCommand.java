package dev.lockstep.cli;

import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicReport;
import dev.lockstep.topics.TopicSpec;
import dev.lockstep.topics.TopicSpecs;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "topics", mixinStandardHelpOptions = true, description = "Manage the protocol's topics.",
        subcommands = {TopicsCommand.Apply.class, TopicGrowthCommands.Grow.class, TopicGrowthCommands.Status.class})
final class TopicsCommand {

    @Command(name = "apply", mixinStandardHelpOptions = true,
            description = {"Create missing topics as declared in topics/; report drift on existing ones (exit 3).",
                "--command-topic, --reply-topic, --dead-letter-topic and --events-topic name the protocol's topics "
                        + "(e.g. --reply-topic lock.replies.billing creates a service's own reply topic)."})
    static final class Apply implements Callable<Integer> {

        @Mixin
        KafkaOptions kafka;

        @Spec
        CommandSpec spec;

        @Option(names = "--dir", paramLabel = "DIR",
                description = "Read the definitions from DIR instead of the copy packaged in the jar.")
        Path dir;

        @Option(names = "--replication-factor", paramLabel = "N",
                description = "Override every topic's replication factor (e.g. 1 on a single broker).")
        Short replicationFactor;

        @Override
        public Integer call() {
            Logging.quietKafka();
            List<TopicSpec> specs;
            try {
                specs = TopicSpecs.named(dir == null ? TopicSpecs.builtIn() : TopicSpecs.fromDirectory(dir),
                        kafka.topics());
            } catch (IllegalArgumentException e) {
                spec.commandLine().getErr().println("lockstep: " + e.getMessage());
                return ExitCodes.USAGE;
            }
            if (replicationFactor != null) {
                specs = specs.stream().map(s -> s.withReplicationFactor(replicationFactor)).toList();
            }
            // An unreachable broker is said in one line after 15 s, not after a minute of client retries.
            try (Admin admin = Admin.create(kafka.settings().with(Map.of(
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000), Map.of()))) {
                List<TopicReport> reports = new TopicApplier(admin).apply(specs);
                reports.forEach(spec.commandLine().getOut()::println);
                spec.commandLine().getOut().flush();
                return reports.stream().anyMatch(r -> r.status() == TopicReport.Status.DRIFT)
                        ? ExitCodes.DRIFT
                        : ExitCodes.OK;
            } catch (KafkaException e) {
                spec.commandLine().getErr().println("lockstep: cannot apply the topics at "
                        + kafka.settings().bootstrapServers() + ": " + e.getMessage()
                        + " (check --bootstrap-servers and --kafka-config)");
                return ExitCodes.ERROR;
            }
        }
    }
}
