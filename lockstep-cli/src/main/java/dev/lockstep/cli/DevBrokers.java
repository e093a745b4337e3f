package dev.lockstep.cli;

import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.embedded.KafkaCluster;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** dev's Kafka: one broker in this process, or a cluster of child processes that a user may kill. */
sealed interface DevBrokers extends AutoCloseable {

    /** How long a killed broker of a cluster stays down before dev starts it again. */
    Duration RESTART_AFTER = Duration.ofSeconds(10);

    String bootstrapServers();

    /** The replication factor of dev's topics: every broker holds each partition, up to three. */
    short replication();

    @Override
    void close();

    /**
     * @param count 1, or a cluster of 3 or more
     * @param firstPort the first broker's client port; the next brokers take the ports after it
     */
    static DevBrokers start(int count, int firstPort, Path dataDir, PrintWriter out) {
        if (count == 1) {
            EmbeddedKafka kafka = EmbeddedKafka.start(firstPort, dataDir);
            out.println("Kafka broker running at " + kafka.bootstrapServers() + " (data in " + dataDir + ")");
            return new Single(kafka);
        }
        List<EmbeddedKafka.Node> nodes = new ArrayList<>();
        for (int id = 1; id <= count; id++) {
            nodes.add(new EmbeddedKafka.Node(id, firstPort + id - 1, EmbeddedKafka.Node.onFreePorts(id).controllerPort()));
        }
        Cluster cluster = new Cluster(KafkaCluster.start(nodes, dataDir.resolve("cluster")), out);
        nodes.forEach(cluster::describe);
        cluster.watch();
        return cluster;
    }

    record Single(EmbeddedKafka kafka) implements DevBrokers {

        @Override
        public String bootstrapServers() {
            return kafka.bootstrapServers();
        }

        @Override
        public short replication() {
            return 1;
        }

        @Override
        public void close() {
            kafka.close();
        }
    }

    /** A cluster whose killed brokers dev starts again after {@link #RESTART_AFTER}, saying so. */
    final class Cluster implements DevBrokers {

        private final KafkaCluster cluster;
        private final PrintWriter out;
        private final Set<Integer> restarting = ConcurrentHashMap.newKeySet();
        private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "dev-broker-watcher");
            thread.setDaemon(true);
            return thread;
        });

        private Cluster(KafkaCluster cluster, PrintWriter out) {
            this.cluster = cluster;
            this.out = out;
        }

        private void describe(EmbeddedKafka.Node node) {
            out.println("Kafka broker " + node.id() + " running at 127.0.0.1:" + node.clientPort() + ", node ID "
                    + node.id() + ", pid " + cluster.pid(node.id()).map(String::valueOf).orElse("?"));
            out.flush();
        }

        private void watch() {
            watcher.scheduleWithFixedDelay(this::restartExited, 1, 1, TimeUnit.SECONDS);
        }

        private void restartExited() {
            for (int id : cluster.exited()) {
                if (restarting.add(id)) {
                    out.println("Kafka broker " + id + " exited; dev starts it again in " + RESTART_AFTER.toSeconds()
                            + " s");
                    out.flush();
                    watcher.schedule(() -> {
                        try {
                            cluster.restart(id);
                            cluster.nodes().stream().filter(node -> node.id() == id).forEach(this::describe);
                        } catch (RuntimeException e) {
                            out.println("Kafka broker " + id + " did not start again: " + e.getMessage());
                            out.flush();
                        } finally {
                            restarting.remove(id);
                        }
                    }, RESTART_AFTER.toMillis(), TimeUnit.MILLISECONDS);
                }
            }
        }

        @Override
        public String bootstrapServers() {
            return cluster.bootstrapServers();
        }

        @Override
        public short replication() {
            return (short) Math.min(3, cluster.nodes().size());
        }

        @Override
        public void close() {
            watcher.shutdownNow();
            cluster.close();
        }
    }
}
