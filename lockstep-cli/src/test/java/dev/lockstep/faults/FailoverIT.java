package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker killed with SIGKILL under load beside a second one, both with the consumer-group
 * settings lockstep ships (no --kafka-config): how long a caller of the dead worker's partitions
 * waits for its answer. The figure is docs/operations.md's failover time.
 */
@Tag("serial") // measures how soon callers are answered again
class FailoverIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration BOUND = Duration.ofSeconds(10);

    /** One send and when its answer came. */
    private record Probe(long sentAt, CompletableFuture<Long> answeredAt) {
    }

    @Test
    void theDeadWorkersCallersAreAnsweredWithinTenSecondsWithTheShippedDefaults() throws Exception {
        List<String> resources = Commands.onEachPartition("failover", LockstepExtension.PARTITIONS);
        List<Probe> probes = new ArrayList<>();
        ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor();
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(),
                        "worker killed (SIGKILL) beside a second, shipped group settings");
                ChildWorker first = ChildWorker.start(env, "failover-1", "failover", Map.of());
                ChildWorker second = ChildWorker.start(env, "failover-2", "failover", Map.of());
                LockClient client = LockClient.start(LockClientSettings.defaults(env.kafka()).withTopics(env.topics())
                        .withRequestTimeout(Duration.ofSeconds(90)))) {
            await().atMost(Duration.ofSeconds(90)).until(() -> first.ownsPartitions() && second.ownsPartitions());
            // Every 50 ms a status for one resource on each partition; each waits as long as it must.
            sender.scheduleAtFixedRate(() -> resources.forEach(resource -> {
                long sentAt = System.nanoTime();
                synchronized (probes) {
                    probes.add(new Probe(sentAt, client.status(resource).thenApply(reply -> System.nanoTime())));
                }
            }), 0, 50, TimeUnit.MILLISECONDS);
            run.load().awaitPublished(500);
            first.kill();
            long killedAt = System.nanoTime();
            run.faultInjected();
            Thread.sleep(BOUND.plusSeconds(5).toMillis());
            sender.shutdown();
            assertThat(sender.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            long longest = 0;
            int around = 0;
            for (Probe probe : List.copyOf(probes)) {
                long wait = probe.answeredAt().get(90, TimeUnit.SECONDS) - probe.sentAt();
                if (probe.sentAt() >= killedAt - Duration.ofSeconds(1).toNanos()) {
                    around++;
                    longest = Math.max(longest, wait);
                }
            }
            System.out.printf("failover: %d requests sent from 1 s before the kill on; the longest waited %d ms%n",
                    around, Duration.ofNanos(longest).toMillis());
            assertThat(Duration.ofNanos(longest)).as("the longest wait for an answer, of %d requests", around)
                    .isLessThan(BOUND);
            run.check();
        } finally {
            sender.shutdownNow();
        }
    }
}
