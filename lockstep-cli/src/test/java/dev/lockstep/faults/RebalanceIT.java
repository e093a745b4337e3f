package dev.lockstep.faults;

import java.util.Map;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two workers in one group under load, a third joining and one leaving: partitions move twice. */
class RebalanceIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void partitionsThatMoveUnderLoadAreNeitherLostNorAppliedTwice() {
        WorkerSettings settings = WorkerSettings.defaults(new KafkaSettings(env.kafka().bootstrapServers(),
                        Map.of()))
                .withTopics(env.topics(), new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("rebalance");
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "rebalances under load: a third worker joins, one leaves")) {
            RunningWorker first = env.startWorker(settings);
            env.startWorker(settings);
            run.load().awaitPublished(1_500);
            env.startWorker(settings);
            run.faultInjected();
            run.load().awaitPublished(1_500);
            first.close();
            run.faultInjected();
            run.load().awaitPublished(1_500);
            run.check();
        }
    }
}
