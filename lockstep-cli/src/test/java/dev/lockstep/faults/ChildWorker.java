package dev.lockstep.faults;

import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code lockstep worker} in a child JVM, so that a fault can be what it is in production: a
 * SIGKILL, or a SIGSTOP that freezes every thread of the process at once.
 */
final class ChildWorker implements AutoCloseable {

    private final Process process;
    private final String name;
    private final Path log;

    private ChildWorker(Process process, String name, Path log) {
        this.process = process;
        this.name = name;
        this.log = log;
    }

    /**
     * @param kafkaProperties client properties passed with {@code --kafka-config} (e.g. group timeouts)
     */
    static ChildWorker start(LockstepExtension env, String name, String groupId, Map<String, String> kafkaProperties) {
        return start(env, env.topics(), name, groupId, kafkaProperties);
    }

    /**
     * A worker started and seen applying the class's topics, so that a test's first grant is not
     * dated from a send made while the child JVM was still starting.
     */
    static ChildWorker startApplying(LockstepExtension env, String name) {
        ChildWorker worker = start(env, name, name, Map.of());
        try (LockClient client = env.startClient()) {
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> client.blocking().status("ready") instanceof Verdict.NotFound);
        }
        return worker;
    }

    /** A worker on other topics than the class's (the soak test uses fresh topics every round). */
    static ChildWorker start(LockstepExtension env, TopicNames topics, String name, String groupId,
            Map<String, String> kafkaProperties) {
        return start(env, topics, name, groupId, kafkaProperties, List.of());
    }

    /** @param options more of the worker's command-line options */
    static ChildWorker start(LockstepExtension env, TopicNames topics, String name, String groupId,
            Map<String, String> kafkaProperties, List<String> options) {
        return start(env, topics, name, groupId, kafkaProperties, options, Map.of());
    }

    /** @param environment added to the child's environment (a preloaded library, say) */
    static ChildWorker start(LockstepExtension env, TopicNames topics, String name, String groupId,
            Map<String, String> kafkaProperties, List<String> options, Map<String, String> environment) {
        try {
            Path dir = Files.createDirectories(Path.of("target", "faults"));
            List<String> args = LockstepProcess.workerArgs(env, topics, groupId);
            args.addAll(options);
            if (!kafkaProperties.isEmpty()) {
                Path config = dir.resolve(name + ".properties");
                StringBuilder text = new StringBuilder();
                kafkaProperties.forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
                Files.writeString(config, text);
                args.addAll(List.of("--kafka-config", config.toString()));
            }
            Path stderr = dir.resolve(name + ".stderr");
            Files.deleteIfExists(stderr);
            return new ChildWorker(LockstepProcess.start(stderr.toFile(), environment, args.toArray(String[]::new)),
                    name, stderr);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGKILL: no shutdown hook runs, the batch in flight is cut wherever it was. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " survived SIGKILL");
        }
    }

    /** SIGSTOP: every thread freezes, heartbeats included, as in a long GC pause or a VM migration. */
    void freeze() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT: the frozen worker carries on from where it was, unaware of the time that passed. */
    void thaw() throws IOException, InterruptedException {
        signal("CONT");
    }

    /** Whether the worker's latest word on its partitions is a non-empty assignment. */
    boolean ownsPartitions() throws IOException {
        List<String> events = log().lines().filter(line -> line.contains("Rebalances - partitions ")).toList();
        return !events.isEmpty() && events.get(events.size() - 1).matches(".*partitions assigned: \\[[^\\]].*");
    }

    /** What the worker logged so far (its stderr). */
    String log() throws IOException {
        return Files.readString(log);
    }

    private void signal(String signal) throws InterruptedException {
        if (!UnixSignals.send(process.pid(), signal)) {
            throw new IllegalStateException("kill -" + signal + " " + name + " failed");
        }
    }

    /** SIGCONT (a frozen worker cannot act on SIGTERM), SIGTERM, then SIGKILL if it does not stop within 30 s. */
    @Override
    public void close() throws InterruptedException, IOException {
        if (process.isAlive()) {
            try {
                thaw();
            } catch (IllegalStateException exitedMeanwhile) {
                // nothing left to stop
            }
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
