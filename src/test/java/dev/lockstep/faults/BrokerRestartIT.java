package dev.lockstep.faults;

import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.TopicAllowList;
import dev.lockstep.worker.WorkerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The broker stopped under load and started again on the same log directory and port. Runs on
 * a broker of its own, so that the rest of the suite keeps its broker.
 */
class BrokerRestartIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aBrokerRestartDelaysRepliesButLosesNone() throws Exception {
        Path dataDir = Files.createTempDirectory("lockstep-restart-kafka-");
        EmbeddedKafka broker = EmbeddedKafka.start(0, dataDir);
        String bootstrap = broker.bootstrapServers();
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        KafkaSettings kafka = new KafkaSettings(bootstrap, FaultTimeouts.GROUP);
        LockstepExtension.createTopics(kafka, env.topics());
        try (FaultRun run = FaultRun.start(kafka, env.topics(), "broker stopped and started on the same log directory")) {
            RunningWorker worker = env.startWorker(WorkerSettings.defaults(kafka)
                    .withTopics(env.topics(), new TopicAllowList(TopicAllowList.DEFAULT))
                    .withGroupId("broker-restart"));
            run.load().awaitPublished(600);
            broker.close();
            run.faultInjected();
            TimeUnit.SECONDS.sleep(3);
            broker = EmbeddedKafka.start(port, dataDir);
            run.load().awaitPublished(1_500);
            run.check();
            worker.close(); // while its broker still runs
        } finally {
            broker.close();
        }
    }
}
