package dev.lockstep.embedded;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One node of a {@link KafkaCluster}, in a process of its own so that it can be killed as a real
 * broker is (SIGKILL: no controlled shutdown). It prints {@value #READY} once it answers, and shuts
 * down cleanly when its standard input ends: when the cluster closes it, or its parent died.
 *
 * <p>Arguments: {@code NODE_ID CLUSTER_ID DATA_DIR NODE...}, each {@code NODE} as
 * {@link EmbeddedKafka.Node#text()}, every node of the cluster, this one included.
 */
public final class ClusterNode {

    static final String READY = "lockstep-cluster-node-ready";

    private ClusterNode() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 4) {
            throw new IllegalArgumentException("usage: ClusterNode NODE_ID CLUSTER_ID DATA_DIR NODE...");
        }
        int id = Integer.parseInt(args[0]);
        List<EmbeddedKafka.Node> all = Arrays.stream(args, 3, args.length).map(EmbeddedKafka.Node::parse).toList();
        EmbeddedKafka.Node self = all.stream().filter(node -> node.id() == id).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("node " + id + " is not among " + all));
        try (EmbeddedKafka kafka = EmbeddedKafka.start(self, all, args[1], Path.of(args[2]), Map.of())) {
            System.out.println(READY + " " + id + " " + kafka.bootstrapServers() + " " + ProcessHandle.current().pid());
            System.out.flush();
            InputStream parent = System.in;
            while (parent.read() >= 0) {
                // Nothing is said on the pipe: its end is the signal to stop.
            }
        }
        System.exit(0);
    }
}
