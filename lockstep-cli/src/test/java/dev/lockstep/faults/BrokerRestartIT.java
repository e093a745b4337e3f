package dev.lockstep.faults;

import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
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
        restartUnderLoad(env, "broker stopped and started on the same log directory", "short", Duration.ofSeconds(3),
                Map.of());
    }

    /** Runs the workload on a broker of its own, stops the broker for {@code down}, and checks the history. */
    static void restartUnderLoad(LockstepExtension env, String fault, String name, Duration down,
            Map<String, String> workerKafka) throws Exception {
        Path dataDir = Files.createTempDirectory("lockstep-restart-kafka-");
        EmbeddedKafka broker = EmbeddedKafka.start(0, dataDir);
        String bootstrap = broker.bootstrapServers();
        int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
        TopicNames topics = env.topics().suffixed("-" + name);
        LockstepExtension.createTopics(KafkaSettings.of(bootstrap), topics);
        RunningWorker worker = env.startWorker(WorkerSettings.defaults(new KafkaSettings(bootstrap, workerKafka))
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("broker-restart-" + name));
        try (FaultRun run = FaultRun.start(env, KafkaSettings.of(bootstrap), topics, fault)) {
            run.load().awaitPublished(600);
            broker.close();
            run.faultInjected();
            TimeUnit.MILLISECONDS.sleep(down.toMillis());
            broker = EmbeddedKafka.start(port, dataDir);
            run.load().awaitPublished(1_500);
            run.check();
        } finally {
            worker.close(); // while its broker still runs
            broker.close();
        }
    }
}
