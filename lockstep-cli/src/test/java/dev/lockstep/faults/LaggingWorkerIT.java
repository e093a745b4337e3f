package dev.lockstep.faults;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.worker.Retention;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A worker that starts long after its commands were published, with a sweeper that runs every
 * 100 ms one row at a time: leases that ended by the wall clock are still live in the log time
 * the worker applies, and must neither be swept nor granted twice. The replies must be exactly
 * the replay engine's.
 */
class LaggingWorkerIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aLaggingWorkerWithAnAggressiveSweeperAnswersAsTheLogSays() throws Exception {
        Retention aggressive = new Retention(EngineSettings.MIN_REQUEST_RETENTION, Duration.ofMillis(100), 1);
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "worker lagging far behind, sweeper every 100 ms")) {
            run.load().awaitPublished(800);
            // The workload's leases last one to three seconds: all of them ended by the wall clock by now.
            Thread.sleep(4_000);
            env.startWorker(env.workerSettings().withRetention(aggressive));
            run.faultInjected();
            run.load().awaitPublished(1_500);
            run.check();
        }
    }
}
