package dev.lockstep.faults;

import dev.lockstep.testkit.LockstepExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PostgreSQL restarted under load: the worker waits for it, loses nothing, grants nothing twice. */
@Tag("serial") // restarts the PostgreSQL every test JVM shares
class PostgresRestartIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aRestartedServerIsWaitedFor() throws Exception {
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "PostgreSQL restarted")) {
            env.startWorker(env.workerSettings().withGroupId("db-restart"));
            run.load().awaitPublished(600);
            env.restartDatabase();
            run.faultInjected();
            run.load().awaitPublished(1_500);
            run.check();
        }
    }
}
