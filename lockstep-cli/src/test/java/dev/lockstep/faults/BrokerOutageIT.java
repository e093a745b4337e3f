package dev.lockstep.faults;

import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The broker refuses the worker's replies for a while: the
 * batches that were applied (and, pipelined, the batches after them) are rewound and redone, and
 * the history shows every reply exactly as the log decides it.
 *
 * <p>The refusal is a reply topic that takes producer timestamps and none older than the broker's
 * clock ({@code message.timestamp.before.max.ms=0}), held until the worker has logged a batch it
 * redoes. Stopping the broker instead leaves it to timing whether any reply is in flight at that
 * moment; {@code min.insync.replicas} above the replication factor no longer refuses anything (the
 * broker caps it at the replication factor); and a reply too large for its topic is no refusal
 * any more: the worker marks it undeliverable instead (docs/protocol.md).
 */
class BrokerOutageIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void repliesThatWereNeverAcknowledgedAreSentAgain() throws Exception {
        TopicNames topics = env.topics().suffixed("-unacked");
        LockstepExtension.createTopics(env.kafka(), topics);
        ListAppender<ILoggingEvent> pipelineLog = new ListAppender<>();
        Logger pipeline = (Logger) LoggerFactory.getLogger("dev.lockstep.worker.PartitionPipeline");
        pipelineLog.start();
        pipeline.addAppender(pipelineLog);
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(new KafkaSettings(
                        env.kafka().bootstrapServers(), Map.of()))
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("broker-outage"));
                FaultRun run = FaultRun.start(env, env.kafka(), topics, "replies refused by the broker (acks fail)");
                Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            run.load().awaitPublished(300);
            refuseReplies(admin, topics.replies(), true);
            run.faultInjected();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> List.copyOf(pipelineLog.list).stream()
                            .anyMatch(e -> e.getFormattedMessage().contains("did not acknowledge")));
            refuseReplies(admin, topics.replies(), false);
            run.load().awaitPublished(1_500);
            run.check();
        } finally {
            pipeline.detachAppender(pipelineLog);
        }
    }

    /** Refusing: every reply is older than the broker's clock allows; else the topic's own settings again. */
    private static void refuseReplies(Admin admin, String topic, boolean refusing)
            throws InterruptedException, ExecutionException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        List<AlterConfigOp> ops = List.of(
                new AlterConfigOp(new ConfigEntry(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                        refusing ? "CreateTime" : "LogAppendTime"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry(TopicConfig.MESSAGE_TIMESTAMP_BEFORE_MAX_MS_CONFIG, "0"),
                        refusing ? AlterConfigOp.OpType.SET : AlterConfigOp.OpType.DELETE));
        admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get();
    }
}
