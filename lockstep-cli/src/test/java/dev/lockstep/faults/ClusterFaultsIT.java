package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.embedded.KafkaCluster;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpecs;
import dev.lockstep.worker.WorkerSettings;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fault workload on a cluster of three KRaft nodes (child JVMs), topics of three replicas with
 * two in sync, the worker's and the clients' producers {@code acks=all} and idempotent: a node
 * killed with SIGKILL (the leader of the busiest command partition, then the active controller)
 * and started again on its data. The history checker and {@code lockstep replay} must find
 * nothing, and every request is answered.
 */
class ClusterFaultsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static KafkaCluster cluster;
    private static KafkaSettings kafka;
    private static Admin admin;

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = KafkaCluster.start(3, Files.createTempDirectory("lockstep-cluster-faults-"));
        kafka = KafkaSettings.of(cluster.bootstrapServers());
        admin = Admin.create(kafka.with(Map.of()));
    }

    @AfterAll
    static void stopCluster() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theLeaderOfTheBusiestCommandPartitionKilled() throws Exception {
        underLoad("leader of a busy command partition SIGKILLed (3 nodes)", "leader", topics -> {
            // The fault workload's resources spread over the partitions; partition 0 always has some.
            return partition(topics.commands()).leader().id();
        });
    }

    @Test
    void theActiveControllerKilled() throws Exception {
        underLoad("active controller SIGKILLed (3 nodes)", "controller",
                topics -> admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId());
    }

    /** Which node to kill, once the load runs. */
    private interface Victim {
        int choose(TopicNames topics) throws Exception;
    }

    private static void underLoad(String fault, String name, Victim victim) throws Exception {
        TopicNames topics = env.topics().suffixed("-" + name);
        try (Admin topicAdmin = Admin.create(kafka.with(Map.of()))) {
            new TopicApplier(topicAdmin).apply(TopicSpecs.renamed(topics, LockstepExtension.PARTITIONS, (short) 3));
        }
        RunningWorker worker = env.startWorker(WorkerSettings.defaults(new KafkaSettings(cluster.bootstrapServers(),
                FaultTimeouts.GROUP)).withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("cluster-" + name));
        try (FaultRun run = FaultRun.start(env, kafka, topics, fault)) {
            run.load().awaitPublished(600);
            int killed = victim.choose(topics);
            cluster.kill(killed);
            run.faultInjected();
            run.load().awaitPublished(1_200);
            cluster.restart(killed);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(partition(topics.commands()).isr())
                    .as("node " + killed + " back in sync").hasSize(3));
            run.load().awaitPublished(1_500);
            run.check();
        } finally {
            worker.close();
        }
    }

    private static TopicPartitionInfo partition(String topic) throws Exception {
        return admin.describeTopics(Set.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                .get(0);
    }
}
