package dev.lockstep.cli;

import dev.lockstep.client.LockClientSettings;
import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.http.OpsServer;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpec;
import dev.lockstep.topics.TopicSpecs;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "dev", mixinStandardHelpOptions = true,
        description = "Start a real Kafka broker in this process, create the topics, and run the worker against "
                + "PostgreSQL. Stays up until Ctrl-C.")
final class DevCommand implements Callable<Integer> {

    static final int DEFAULT_HTTP_PORT = 8080;
    /** How long the HTTP lock API waits for a reply before answering 504. */
    static final Duration GATEWAY_TIMEOUT = Duration.ofSeconds(10);

    @Option(names = "--kafka-port", defaultValue = "9092", description = "Broker port on 127.0.0.1. Default: ${DEFAULT-VALUE}.")
    int kafkaPort;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Where the broker keeps its data; kept across runs. Default: a new temporary directory.")
    Path dataDir;

    @Mixin
    WorkerOptions options;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        // Busy ports and an unreachable database are said first, before a broker starts for nothing.
        OpsServer.requireFree("127.0.0.1", kafkaPort, "--kafka-port");
        options.http(Optional.of(DEFAULT_HTTP_PORT), "127.0.0.1")
                .ifPresent(http -> OpsServer.requireFree(http.host(), http.port(), "--http-port"));
        PostgresLockStore.check(options.database());
        Path dir = dataDir != null ? dataDir : temporaryDirectory();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(kafkaPort, dir)) {
            KafkaSettings settings = KafkaSettings.of(kafka.bootstrapServers());
            List<TopicSpec> topics = TopicSpecs.builtIn().stream().map(t -> t.withReplicationFactor((short) 1)).toList();
            PrintWriter out = spec.commandLine().getOut();
            try (Admin admin = Admin.create(settings.with(Map.of()))) {
                new TopicApplier(admin).apply(topics).forEach(report -> out.println("topic " + report));
            }
            out.println("Kafka broker running at " + kafka.bootstrapServers() + " (data in " + dir + ")");
            out.flush();
            DatabaseSettings database = options.database();
            return WorkerRunner.run(options.worker(settings, TopicNames.DEFAULT), database,
                    options.http(Optional.of(DEFAULT_HTTP_PORT), "127.0.0.1"),
                    Optional.of(LockClientSettings.defaults(settings).withRequestTimeout(GATEWAY_TIMEOUT)), url -> {
                        out.println("lockstep dev ready: kafka " + kafka.bootstrapServers() + ", database " + database
                                + url.map(u -> ", http " + u).orElse(""));
                        out.println("Try, in another terminal: lockstep acquire payment:42 --owner worker-1 --ttl 30");
                        out.flush();
                    });
        }
    }

    private static Path temporaryDirectory() {
        try {
            return Files.createTempDirectory("lockstep-dev-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the broker", e);
        }
    }
}
