package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults of a cluster of three KRaft nodes under load ({@link ClusterLoad}): the leader of busy
 * command and reply partitions killed with SIGKILL and started again on its data (in CI); and, beyond CI's
 * time (tag {@value #LONG}, {@code mvn -Pcluster verify}), the active controller killed, the leader
 * frozen (SIGSTOP) for longer than the broker's and the consumer group's session timeouts, and a
 * rolling restart of all three nodes, each stopped as an operator stops it and back in sync before
 * the next. The history checker and {@code lockstep replay} find nothing, and every request is
 * answered.
 */
@Tag("serial") // three KRaft nodes in child JVMs
class ClusterFaultsIT {

    /** The tag of the runs longer than CI's budget: {@code mvn -Pcluster verify} runs them. */
    static final String LONG = "cluster";

    /** Past the broker's session with the controller (4 s in a cluster) and the worker's group session (6 s). */
    private static final long PAUSE_SECONDS = 12;

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static ClusterLoad cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = ClusterLoad.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theLeaderOfBusyCommandAndReplyPartitionsKilled() throws Exception {
        answeredWithinTheGoal(cluster.run(env, "leader of busy command and reply partitions SIGKILLed (3 nodes)", "leader", (load, topics) -> {
            int leader = load.leaderOfEach(topics.commands(), topics.replies());
            load.nodes().kill(leader);
            load.nodes().restart(leader);
            return 1;
        }));
    }

    @Test
    @Tag(LONG)
    void theActiveControllerKilled() throws Exception {
        answeredWithinTheGoal(cluster.run(env, "active controller SIGKILLed (3 nodes)", "controller", (load, topics) -> {
            int controller = load.activeController();
            load.nodes().kill(controller);
            load.nodes().restart(controller);
            return 1;
        }));
    }

    @Test
    @Tag(LONG)
    void aNodePausedPastTheSessionTimeouts() throws Exception {
        cluster.run(env, "leader paused (SIGSTOP) " + PAUSE_SECONDS + " s, 3 nodes", "paused", (load, topics) -> {
            int leader = load.leaderOf(topics.commands());
            load.nodes().pause(leader);
            try {
                TimeUnit.SECONDS.sleep(PAUSE_SECONDS);
            } finally {
                load.nodes().resume(leader);
            }
            return 1;
        });
    }

    @Test
    @Tag(LONG)
    void aRollingRestartOfAllThree() throws Exception {
        cluster.run(env, "rolling restart of 3 nodes", "rolling", (load, topics) -> {
            for (var node : load.nodes().nodes()) {
                load.nodes().stop(node.id());
                load.nodes().restart(node.id());
                load.awaitInSync(topics.commands());
            }
            return load.nodes().nodes().size();
        });
    }

    /**
     * The recovery goal (docs/operations.md#recovery): a killed node is fenced after the brokers'
     * 4 s session, its partitions led by others, and the clients and the worker find them.
     */
    private static void answeredWithinTheGoal(RecoveryProbes.Figures figures) {
        assertThat(figures.longest()).as("the longest wait of %d requests", figures.requests())
                .isLessThan(Duration.ofSeconds(10));
    }
}
