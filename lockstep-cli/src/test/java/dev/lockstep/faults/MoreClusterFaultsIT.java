package dev.lockstep.faults;

import dev.lockstep.testkit.LockstepExtension;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The cluster faults beyond CI's time, in {@code mvn -Pcluster verify} ({@link ClusterLoad}): the
 * active controller killed with SIGKILL; the leader of a busy command partition frozen (SIGSTOP)
 * for longer than the broker's and the consumer group's session timeouts, then thawed; and a
 * rolling restart of all three nodes, each stopped as an operator stops it and back in sync
 * before the next.
 */
class MoreClusterFaultsIT {

    /** Past the broker's session with the controller (9 s) and the worker's group session (6 s). */
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
    void theActiveControllerKilled() throws Exception {
        cluster.run(env, "active controller SIGKILLed (3 nodes)", "controller", (load, topics) -> {
            int controller = load.activeController();
            load.nodes().kill(controller);
            load.nodes().restart(controller);
            return 1;
        });
    }

    @Test
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
}
