package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker frozen (SIGSTOP) past its session and poll timeouts, perhaps holding an open
 * transaction, while another worker takes its partitions; then thawed: it comes back as a zombie
 * that still believes it owns them.
 */
class ZombieWorkerIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final String GROUP = "zombie";

    @Test
    void aFrozenWorkerThatComesBackCannotUndoItsSuccessor() throws Exception {
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "worker frozen (SIGSTOP) past max.poll.interval.ms, thawed as a zombie");
                ChildWorker zombie = ChildWorker.start(env, "zombie", GROUP, Map.of());
                ChildWorker successor = ChildWorker.start(env, "successor", GROUP, Map.of())) {
            for (int round = 0; round < 2; round++) {
                int seen = env.replies().all().size();
                env.replies().await(r -> true, seen + 300);
                // Freeze it while it owns partitions: a worker slow to start (or to rejoin after
                // the previous round) would otherwise be frozen with nothing to lose.
                Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                        .until(zombie::ownsPartitions);
                zombie.freeze();
                run.faultInjected();
                TimeUnit.MILLISECONDS.sleep(Duration.ofSeconds(14).toMillis()); // past session and poll timeouts
                zombie.thaw();
                run.load().awaitPublished(300);
            }
            run.check();
            assertThat(zombie.log()).as("the frozen worker found out it had lost its partitions")
                    .contains("partitions lost");
        }
    }
}
