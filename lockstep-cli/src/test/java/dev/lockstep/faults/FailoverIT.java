package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker killed with SIGKILL, or frozen with SIGSTOP (a long GC pause, a stopped VM), under load
 * beside a second one, both with the consumer-group settings lockstep ships (no --kafka-config):
 * how long a caller of the lost worker's partitions waits for its answer. The figures are
 * docs/operations.md's failover time and recovery table.
 */
@Tag("serial") // measures how soon callers are answered again
class FailoverIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration BOUND = Duration.ofSeconds(10);

    /** What happens to the first worker. */
    private interface Fault {
        void inject(ChildWorker worker) throws IOException, InterruptedException;
    }

    @Test
    void theDeadWorkersCallersAreAnsweredWithinTenSecondsWithTheShippedDefaults() throws Exception {
        measure("worker killed (SIGKILL) beside a second, shipped group settings", "failover-kill", ChildWorker::kill);
    }

    @Test
    void theFrozenWorkersCallersAreAnsweredWithinTenSecondsWithTheShippedDefaults() throws Exception {
        // Thawed when closed: a zombie then, whose batches the partition's new owner has fenced off.
        measure("worker frozen (SIGSTOP) beside a second, shipped group settings", "failover-freeze",
                ChildWorker::freeze);
    }

    private static void measure(String fault, String name, Fault injection) throws Exception {
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), fault);
                ChildWorker first = ChildWorker.start(env, name + "-1", name, Map.of());
                ChildWorker second = ChildWorker.start(env, name + "-2", name, Map.of());
                LockClient client = LockClient.start(LockClientSettings.defaults(env.kafka()).withTopics(env.topics())
                        .withRequestTimeout(Duration.ofSeconds(90)));
                RecoveryProbes probes = RecoveryProbes.start(client, name, LockstepExtension.PARTITIONS)) {
            await().atMost(Duration.ofSeconds(90)).until(() -> first.ownsPartitions() && second.ownsPartitions());
            run.load().awaitPublished(500);
            injection.inject(first);
            probes.faultInjected();
            run.faultInjected();
            Thread.sleep(BOUND.plusSeconds(5).toMillis());
            RecoveryProbes.Figures figures = probes.finish(Duration.ofSeconds(90));
            figures.report(fault, "");
            assertThat(figures.longest()).as("the longest wait for an answer, of %d requests", figures.requests())
                    .isLessThan(BOUND);
            run.check();
        }
    }
}
