package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.embedded.KafkaCluster;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpecs;
import dev.lockstep.worker.WorkerSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * The fault workload on a cluster of three KRaft nodes (child JVMs), topics of three replicas with
 * two in sync, the worker's and the clients' producers {@code acks=all} and idempotent: each run
 * creates its topics, starts a worker, injects its fault under load, waits for every node to be
 * back in sync, and checks the history and {@code lockstep replay}.
 */
final class ClusterLoad implements AutoCloseable {

    /** What a run does to the cluster, once the load runs. */
    interface Fault {
        /** @return how many faults it injected */
        int inject(ClusterLoad cluster, TopicNames topics) throws Exception;
    }

    private final KafkaCluster cluster;
    private final KafkaSettings kafka;
    private final Admin admin;

    private ClusterLoad(KafkaCluster cluster) {
        this.cluster = cluster;
        this.kafka = KafkaSettings.of(cluster.bootstrapServers());
        this.admin = Admin.create(kafka.with(Map.of()));
    }

    static ClusterLoad start() throws IOException {
        return start(Map.of());
    }

    /** @param environments added to the environment of the nodes with these IDs (1 to 3) */
    static ClusterLoad start(Map<Integer, Map<String, String>> environments) throws IOException {
        List<EmbeddedKafka.Node> nodes = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            nodes.add(EmbeddedKafka.Node.onFreePorts(id));
        }
        return new ClusterLoad(KafkaCluster.start(nodes, Files.createTempDirectory("lockstep-cluster-faults-"),
                environments));
    }

    KafkaSettings kafka() {
        return kafka;
    }

    Admin admin() {
        return admin;
    }

    KafkaCluster nodes() {
        return cluster;
    }

    /** Runs {@code action} under load and checks the history; how long callers waited around it. */
    RecoveryProbes.Figures run(LockstepExtension env, String fault, String name, Fault action) throws Exception {
        TopicNames topics = env.topics().suffixed("-" + name);
        new TopicApplier(admin).apply(TopicSpecs.renamed(topics, LockstepExtension.PARTITIONS, (short) 3));
        RunningWorker worker = env.startWorker(WorkerSettings.defaults(new KafkaSettings(cluster.bootstrapServers(),
                Map.of())).withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .withGroupId("cluster-" + name));
        try (FaultRun run = FaultRun.start(env, kafka, topics, fault);
                LockClient client = LockClient.start(LockClientSettings.defaults(kafka).withTopics(topics)
                        .withRequestTimeout(Duration.ofSeconds(120)));
                RecoveryProbes probes = RecoveryProbes.start(client, "cluster-" + name, LockstepExtension.PARTITIONS)) {
            run.load().awaitPublished(600);
            probes.faultInjected();
            int injected = action.inject(this, topics);
            for (int i = 0; i < injected; i++) {
                run.faultInjected();
            }
            awaitInSync(topics.commands());
            run.load().awaitPublished(1_000);
            RecoveryProbes.Figures figures = probes.finish(Duration.ofSeconds(120));
            figures.report(fault, "");
            run.check();
            return figures;
        } finally {
            worker.close();
        }
    }

    /** The leader of the topic's first partition. */
    int leaderOf(String topic) throws Exception {
        return partition(topic).leader().id();
    }

    /**
     * A node leading a partition of every one of {@code topics} (the first of them's partition 0
     * when it does): killing it moves the leadership of a busy partition of each at once.
     */
    int leaderOfEach(String... topics) throws Exception {
        Set<Integer> leading = null;
        for (String topic : topics) {
            Set<Integer> leaders = new HashSet<>();
            admin.describeTopics(Set.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions()
                    .forEach(p -> leaders.add(p.leader().id()));
            if (leading == null) {
                leading = leaders;
            } else {
                leading.retainAll(leaders);
            }
        }
        int first = leaderOf(topics[0]);
        if (leading.contains(first)) {
            return first;
        }
        return leading.stream().findFirst().orElseThrow(() -> new IllegalStateException("no node leads a partition "
                + "of each of " + String.join(", ", topics)));
    }

    /** The node leading the controller quorum. */
    int activeController() throws Exception {
        return admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS).leaderId();
    }

    /** Waits until every partition of the topic has all three replicas in sync. */
    void awaitInSync(String topic) {
        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> assertThat(admin.describeTopics(Set.of(topic))
                .allTopicNames().get(30, TimeUnit.SECONDS).get(topic).partitions())
                .allSatisfy(p -> assertThat(p.isr()).as(topic + "-" + p.partition() + " in sync").hasSize(3)));
    }

    private TopicPartitionInfo partition(String topic) throws InterruptedException, ExecutionException, TimeoutException {
        List<TopicPartitionInfo> partitions = admin.describeTopics(Set.of(topic)).allTopicNames()
                .get(30, TimeUnit.SECONDS).get(topic).partitions();
        return partitions.get(0);
    }

    @Override
    public void close() {
        admin.close();
        cluster.close();
    }
}
