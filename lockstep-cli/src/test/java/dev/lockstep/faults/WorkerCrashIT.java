package dev.lockstep.faults;

import java.util.Map;
import dev.lockstep.testkit.LockstepExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A worker process killed with SIGKILL while it applies batches, then started again. */
class WorkerCrashIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final String GROUP = "crash";

    @Test
    void aWorkerKilledMidBatchLosesNothingAndGrantsNothingTwice() throws Exception {
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "worker killed (SIGKILL) mid-batch, restarted");
                ChildWorker first = ChildWorker.start(env, "crash-1", GROUP, Map.of())) {
            awaitAnswering(run);
            first.kill();
            run.faultInjected();
            run.load().awaitPublished(300); // commands pile up while no worker runs
            try (ChildWorker second = ChildWorker.start(env, "crash-2", GROUP, Map.of())) {
                awaitAnswering(run);
                second.kill();
                run.faultInjected();
            }
            try (ChildWorker third = ChildWorker.start(env, "crash-3", GROUP, Map.of())) {
                awaitAnswering(run);
                run.check();
            }
        }
    }

    /** Returns once the worker answers under load, so that the kill falls amid batches. */
    private static void awaitAnswering(FaultRun run) {
        int seen = env.replies().all().size();
        env.replies().await(r -> true, seen + 300);
        run.load().awaitPublished(200);
    }
}
