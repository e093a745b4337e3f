package dev.lockstep.faults;

import dev.lockstep.testkit.LockstepExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CI's cluster fault run ({@link ClusterLoad}): the leader of a busy command partition killed with
 * SIGKILL under load and started again on its data. The history checker and {@code lockstep
 * replay} find nothing, and every request is answered. The other cluster faults (the active
 * controller killed, a node paused, a rolling restart) are {@link MoreClusterFaultsIT}'s, in
 * {@code mvn -Pcluster verify}.
 */
class ClusterFaultsIT {

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
    void theLeaderOfABusyCommandPartitionKilled() throws Exception {
        cluster.run(env, "leader of a busy command partition SIGKILLed (3 nodes)", "leader", (load, topics) -> {
            int leader = load.leaderOf(topics.commands());
            load.nodes().kill(leader);
            load.nodes().restart(leader);
            return 1;
        });
    }
}
