package dev.lockstep.embedded;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * A Kafka cluster of several KRaft nodes on this machine, each a child JVM ({@link ClusterNode})
 * that can be killed with SIGKILL and started again on its data, as a real broker is: for the
 * cluster fault runs and {@code lockstep dev --brokers 3}. Every node is a broker and a controller
 * voter; with three, topics default to three replicas, two in sync. A node formatted before keeps
 * its cluster ID, topics and records.
 *
 * <pre>{@code
 * try (KafkaCluster cluster = KafkaCluster.start(3, dir)) {
 *     cluster.kill(2);        // SIGKILL
 *     cluster.restart(2);     // on its data: it rejoins
 * }
 * }</pre>
 */
public final class KafkaCluster implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final List<EmbeddedKafka.Node> nodes;
    private final String clusterId;
    private final Path dataDir;
    private final Map<Integer, Process> running = new LinkedHashMap<>();
    private final Map<Integer, Map<String, String>> environments;

    private KafkaCluster(List<EmbeddedKafka.Node> nodes, String clusterId, Path dataDir,
            Map<Integer, Map<String, String>> environments) {
        this.nodes = nodes;
        this.clusterId = clusterId;
        this.dataDir = dataDir;
        this.environments = Map.copyOf(environments);
    }

    /** Starts {@code size} nodes (IDs 1 to size) on free ports, and returns once every one answers. */
    public static KafkaCluster start(int size, Path dataDir) {
        List<EmbeddedKafka.Node> nodes = new ArrayList<>();
        for (int id = 1; id <= size; id++) {
            nodes.add(EmbeddedKafka.Node.onFreePorts(id));
        }
        return start(nodes, dataDir);
    }

    /**
     * Starts the nodes, each on its data under {@code dataDir} (formatted if new, kept if not), and
     * returns once every one answers.
     */
    public static KafkaCluster start(List<EmbeddedKafka.Node> nodes, Path dataDir) {
        return start(nodes, dataDir, Map.of());
    }

    /**
     * As {@link #start(List, Path)}, each node with the environment {@code environments} holds for
     * its ID added to its process's, at every start (a preloaded library that fakes its clock, say).
     */
    public static KafkaCluster start(List<EmbeddedKafka.Node> nodes, Path dataDir,
            Map<Integer, Map<String, String>> environments) {
        KafkaCluster cluster = new KafkaCluster(List.copyOf(nodes), Uuid.randomUuid().toString(), dataDir,
                environments);
        try {
            // Together: a node answers only once a majority of the voters runs.
            List<CompletableFuture<Void>> ready = nodes.stream().map(node -> cluster.launch(node.id())).toList();
            ready.forEach(CompletableFuture::join);
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** Every node's client address, whether it runs or not. */
    public String bootstrapServers() {
        return nodes.stream().map(node -> "127.0.0.1:" + node.clientPort()).collect(Collectors.joining(","));
    }

    public List<EmbeddedKafka.Node> nodes() {
        return nodes;
    }

    /** The process ID of a running node. */
    public synchronized Optional<Long> pid(int id) {
        return Optional.ofNullable(running.get(id)).filter(Process::isAlive).map(Process::pid);
    }

    /** Kills the node with SIGKILL (no controlled shutdown, nothing flushed) and waits until it is gone. */
    public synchronized void kill(int id) {
        Process process = running.remove(id);
        if (process == null) {
            throw new IllegalStateException("node " + id + " does not run");
        }
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the node as an operator does: a controlled shutdown (its leaderships moved first). */
    public synchronized void stop(int id) {
        Process process = running.remove(id);
        if (process == null) {
            throw new IllegalStateException("node " + id + " does not run");
        }
        try {
            process.getOutputStream().close();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroy();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Freezes the node (SIGSTOP), as a long GC pause or a stalled VM does: its connections stay open. */
    public void pause(int id) {
        signal(id, "STOP");
    }

    /** Thaws a paused node (SIGCONT). */
    public void resume(int id) {
        signal(id, "CONT");
    }

    private void signal(int id, String signal) {
        long pid = pid(id).orElseThrow(() -> new IllegalStateException("node " + id + " does not run"));
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal node " + id, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted signalling node " + id, e);
        }
    }

    /** Starts a node that was killed or stopped again, on its data, and returns once it answers. */
    public void restart(int id) {
        launch(id).join();
    }

    /** The nodes whose process ended though nobody stopped it (killed from outside, or crashed). */
    public synchronized List<Integer> exited() {
        return running.entrySet().stream().filter(node -> !node.getValue().isAlive()).map(Map.Entry::getKey).toList();
    }

    private synchronized CompletableFuture<Void> launch(int id) {
        if (running.containsKey(id) && running.get(id).isAlive()) {
            throw new IllegalStateException("node " + id + " runs already");
        }
        running.remove(id);
        Path nodeDir = dataDir.resolve("node-" + id);
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-Xmx512m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), ClusterNode.class.getName(), Integer.toString(id),
                clusterId, nodeDir.toString()));
        nodes.forEach(node -> command.add(node.text()));
        Process process;
        try {
            Files.createDirectories(nodeDir);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environments.getOrDefault(id, Map.of()));
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start cluster node " + id, e);
        }
        running.put(id, process);
        // A thread of its own per node, reading all along: a node whose output nobody reads blocks.
        return CompletableFuture.runAsync(() -> awaitReady(id, process, nodeDir.resolve("node.log")), task -> {
            Thread reader = new Thread(task, "cluster-node-" + id + "-start");
            reader.setDaemon(true);
            reader.start();
        }).orTimeout(READY_TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS);
    }

    /** Reads the node's output into its log file until it says it is ready (and on, in the background). */
    private static void awaitReady(int id, Process process, Path log) {
        Instant deadline = Instant.now().plus(READY_TIMEOUT);
        BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        try {
            var writer = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
            String line;
            while ((line = output.readLine()) != null) {
                writer.write(line);
                writer.newLine();
                writer.flush();
                if (line.startsWith(ClusterNode.READY)) {
                    Thread drain = new Thread(() -> drain(output, writer), "cluster-node-" + id + "-log");
                    drain.setDaemon(true);
                    drain.start();
                    return;
                }
                if (Instant.now().isAfter(deadline)) {
                    break;
                }
            }
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("reading cluster node " + id + "'s output", e);
        }
        throw new IllegalStateException("cluster node " + id + " did not start within " + READY_TIMEOUT
                + " (or exited); its output is in " + log);
    }

    private static void drain(BufferedReader output, java.io.Writer writer) {
        try (writer) {
            String line;
            while ((line = output.readLine()) != null) {
                writer.write(line);
                writer.write(System.lineSeparator());
                writer.flush();
            }
        } catch (IOException e) {
            // The node is gone: so is its output.
        }
    }

    private static String javaBinary() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString());
    }

    /** Stops every node that runs: its input closed, a clean shutdown; killed if it takes longer than 30 s. */
    @Override
    public synchronized void close() {
        running.values().forEach(process -> {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                process.destroy();
            }
        });
        running.values().forEach(process -> {
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        });
        running.clear();
    }
}
