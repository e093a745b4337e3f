package dev.lockstep.faults;

import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The long run, for local use: {@code mvn -Psoak verify -Dlockstep.soak.duration=PT1H
 * -Dlockstep.faults.seed=7}. Rounds of two to three minutes, each on fresh topics with two
 * worker processes, inject faults drawn from the seed (SIGKILL and restart, SIGSTOP past the
 * session timeout, terminated database connections, a third worker joining and leaving) and end
 * with the history checker. Not part of the default build.
 */
class SoakIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration ROUND = Duration.ofMinutes(2);

    @Test
    void roundsOfRandomFaultsNeverBreakTheLock() throws Exception {
        Duration total = Duration.parse(System.getProperty("lockstep.soak.duration", "PT10M"));
        Random random = new Random(FaultRun.SEED);
        Instant end = Instant.now().plus(total);
        for (int round = 1; Instant.now().isBefore(end); round++) {
            TopicNames topics = env.topics().suffixed("-r" + round);
            LockstepExtension.createTopics(env.kafka(), topics);
            soakRound(round, topics, random);
        }
    }

    private static void soakRound(int round, TopicNames topics, Random random) throws Exception {
        String group = "soak-" + round;
        List<ChildWorker> workers = new ArrayList<>();
        try (FaultRun run = FaultRun.start(env, env.kafka(), topics, "soak round " + round)) {
            workers.add(ChildWorker.start(env, topics, "soak-" + round + "-a", group, Map.of()));
            workers.add(ChildWorker.start(env, topics, "soak-" + round + "-b", group, Map.of()));
            Instant roundEnd = Instant.now().plus(ROUND);
            for (int step = 0; Instant.now().isBefore(roundEnd); step++) {
                run.load().awaitPublished(200 + random.nextInt(1_000));
                int victim = random.nextInt(workers.size());
                switch (random.nextInt(4)) {
                    case 0 -> {
                        workers.get(victim).kill();
                        workers.set(victim, ChildWorker.start(env, topics, "soak-" + round + "-k" + step, group,
                                Map.of()));
                    }
                    case 1 -> {
                        workers.get(victim).freeze();
                        TimeUnit.SECONDS.sleep(4 + random.nextInt(10));
                        workers.get(victim).thaw();
                    }
                    case 2 -> Awaitility.await().atMost(Duration.ofSeconds(30))
                            .until(() -> PostgresTerminateIT.terminateConnections(env) > 0);
                    default -> {
                        try (ChildWorker extra = ChildWorker.start(env, topics, "soak-" + round + "-x" + step, group,
                                Map.of())) {
                            run.load().awaitPublished(500);
                        }
                    }
                }
                run.faultInjected();
            }
            run.load().awaitPublished(500);
            run.check();
        } finally {
            for (ChildWorker worker : workers) {
                worker.close();
            }
        }
    }
}
