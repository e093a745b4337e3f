package dev.lockstep.embedded;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real Apache Kafka node (KRaft: broker and controller in one process) running inside this JVM:
 * the single broker behind {@code lockstep dev} and the test suite on machines without Docker, or
 * one node of a {@link KafkaCluster}. Its storage is formatted in code, so it needs no scripts; started again on the same
 * directory, it keeps its topics and records.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.start(0, Files.createTempDirectory("kafka"))) {
 *     String bootstrap = kafka.bootstrapServers();
 *     // ... clients against bootstrap ...
 * }
 * }</pre>
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final String CONTROLLER = "CONTROLLER";
    private static final Set<String> LISTS = Set.of("listeners", "advertised.listeners",
            "listener.security.protocol.map");
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path dataDir;

    private EmbeddedKafka(KafkaRaftServer server, String bootstrapServers, Path dataDir) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.dataDir = dataDir;
    }

    /**
     * Formats {@code dataDir} if it is new, starts the broker, and returns once it answers.
     *
     * @param port the client port on 127.0.0.1; 0 picks a free one
     */
    public static EmbeddedKafka start(int port, Path dataDir) {
        return start(port, dataDir, Map.of());
    }

    /**
     * As {@link #start(int, Path)}, with broker properties over the defaults: an authorizer and a
     * SASL listener, for a test of lockstep under ACLs. The listener settings ({@code listeners},
     * {@code advertised.listeners}, {@code listener.security.protocol.map}) are added to the
     * broker's own (its PLAINTEXT client listener and its controller), not put in their place.
     */
    public static EmbeddedKafka start(int port, Path dataDir, Map<String, String> overrides) {
        Node self = new Node(1, port == 0 ? freePort() : port, freePort());
        return start(self, List.of(self), Uuid.randomUuid().toString(), dataDir, overrides);
    }

    /**
     * One node of a cluster of {@code all} (each a broker and a controller voter), formatted with
     * {@code clusterId} if its directory is new: the same ID on every node. With three nodes or
     * more, topics default to three replicas, two in sync, and no unclean leader election (the
     * production layout, docs/operations.md). Returns once this node answers; a node of a cluster
     * answers once a majority of the voters runs.
     */
    public static EmbeddedKafka start(Node self, List<Node> all, String clusterId, Path dataDir,
            Map<String, String> overrides) {
        Path logDir = dataDir.resolve("kraft-logs");
        try {
            Files.createDirectories(logDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the broker's data directory " + logDir, e);
        }
        Properties props = brokerProperties(self, all, logDir);
        overrides.forEach((key, value) -> props.put(key, LISTS.contains(key) ? props.getProperty(key) + "," + value
                : value));
        format(logDir, self.id(), clusterId);
        KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server.startup();
        EmbeddedKafka kafka = new EmbeddedKafka(server, "127.0.0.1:" + self.clientPort(), dataDir);
        kafka.awaitReady();
        return kafka;
    }

    /** A node's ID and its ports on 127.0.0.1: clients', and the controller quorum's. */
    public record Node(int id, int clientPort, int controllerPort) {

        /** A node on two free ports. */
        public static Node onFreePorts(int id) {
            return new Node(id, freePort(), freePort());
        }

        /** As an argument: {@code id:clientPort:controllerPort}. */
        public String text() {
            return id + ":" + clientPort + ":" + controllerPort;
        }

        public static Node parse(String text) {
            String[] parts = text.split(":");
            if (parts.length != 3) {
                throw new IllegalArgumentException("a node is id:clientPort:controllerPort, not " + text);
            }
            return new Node(Integer.parseInt(parts[0]), Integer.parseInt(parts[1]), Integer.parseInt(parts[2]));
        }
    }

    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Path dataDir() {
        return dataDir;
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }

    private static Properties brokerProperties(Node self, List<Node> all, Path logDir) {
        // Internal topics get as many replicas as a cluster of three or more keeps through one
        // lost node; a single node has one of everything.
        String replicas = Integer.toString(Math.min(3, all.size()));
        String inSync = all.size() >= 3 ? "2" : "1";
        Properties props = new Properties();
        props.putAll(Map.ofEntries(
                Map.entry("process.roles", "broker,controller"),
                Map.entry("node.id", Integer.toString(self.id())),
                Map.entry("controller.quorum.voters", String.join(",", all.stream()
                        .map(node -> node.id() + "@127.0.0.1:" + node.controllerPort()).toList())),
                Map.entry("listeners", "PLAINTEXT://127.0.0.1:" + self.clientPort() + "," + CONTROLLER
                        + "://127.0.0.1:" + self.controllerPort()),
                Map.entry("advertised.listeners", "PLAINTEXT://127.0.0.1:" + self.clientPort()),
                Map.entry("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT"),
                Map.entry("controller.listener.names", CONTROLLER),
                Map.entry("inter.broker.listener.name", "PLAINTEXT"),
                Map.entry("log.dirs", logDir.toString()),
                Map.entry("auto.create.topics.enable", "false"),
                Map.entry("default.replication.factor", replicas),
                Map.entry("min.insync.replicas", inSync),
                Map.entry("unclean.leader.election.enable", "false"),
                // Few partitions keep start-up fast.
                Map.entry("offsets.topic.replication.factor", replicas),
                Map.entry("offsets.topic.num.partitions", "4"),
                Map.entry("transaction.state.log.replication.factor", replicas),
                Map.entry("transaction.state.log.min.isr", inSync),
                Map.entry("transaction.state.log.num.partitions", "4"),
                Map.entry("share.coordinator.state.topic.replication.factor", replicas),
                Map.entry("share.coordinator.state.topic.min.isr", inSync),
                Map.entry("group.initial.rebalance.delay.ms", "0"),
                Map.entry("num.partitions", "1")));
        if (all.size() > 1) {
            // A node that dies is fenced, and its partitions led by others, after this: Kafka's
            // 9 s would be most of the recovery goal (10 s, docs/operations.md#recovery) on its
            // own. Heartbeats every second keep a live node well inside it. A single node has no
            // other to lead its partitions: there, fencing it would only take them offline.
            props.put("broker.session.timeout.ms", "4000");
            props.put("broker.heartbeat.interval.ms", "1000");
        }
        return props;
    }

    private static void format(Path logDir, int nodeId, String clusterId) {
        if (Files.exists(logDir.resolve("meta.properties"))) {
            return; // formatted before: keep its cluster ID, topics and records
        }
        Formatter formatter = new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(nodeId)
                .setClusterId(clusterId)
                .addDirectory(logDir.toString())
                .setMetadataLogDirectory(logDir.toString())
                .setReleaseVersion(MetadataVersion.latestProduction())
                .setSupportedFeatures(Feature.PRODUCTION_FEATURES)
                .setControllerListenerName(CONTROLLER)
                .setIgnoreFormatted(true);
        try {
            formatter.run();
        } catch (Exception e) { // Formatter.run() declares Exception
            throw new IllegalStateException("formatting the embedded broker's storage in " + logDir + " failed", e);
        }
    }

    private void awaitReady() {
        Instant deadline = Instant.now().plus(READY_TIMEOUT);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            while (true) {
                try {
                    admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
                    return;
                } catch (ExecutionException | TimeoutException e) {
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException("the embedded broker did not answer within " + READY_TIMEOUT, e);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while waiting for the embedded broker", e);
                }
            }
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }
}
