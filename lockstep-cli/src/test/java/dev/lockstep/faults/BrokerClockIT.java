package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Verdict;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpecs;
import dev.lockstep.worker.WorkerSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A partition leader whose clock steps 30 s ahead, then to 30 s behind (libfaketime in one of
 * three KRaft nodes' JVMs): the worker tells of each, naming that broker, in its log,
 * {@code /health/ready} and {@code lockstep_log_time_outside_total}. Log time is still taken as
 * that leader stamps it, so a lease held across the step ahead ends early for its holder, and one
 * granted after the step back ends late; the test prints by how much (the figures
 * docs/operations.md#recovery gives), and {@code lockstep replay} agrees with every reply.
 */
@Tag("serial") // three KRaft nodes in child JVMs
@Tag(ClusterFaultsIT.LONG)
class BrokerClockIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int FAKED = 2;
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration SHORT_TTL = Duration.ofSeconds(3);

    @Test
    void aLeaderClockSteppedAheadThenBehindIsToldNamingTheBroker() throws Exception {
        Path offset = Files.writeString(Files.createTempFile("broker-clock", ".faketime"), "+0");
        try (ClusterLoad cluster = ClusterLoad.start(Map.of(FAKED, WorkerClockIT.fakedClock(offset)))) {
            TopicNames topics = env.topics().suffixed("-broker-clock");
            new TopicApplier(cluster.admin()).apply(TopicSpecs.renamed(topics, LockstepExtension.PARTITIONS,
                    (short) 3));
            int partition = ledByFaked(cluster, topics.commands());
            String resource = IntStream.range(0, 1_000).mapToObj(i -> "clocked-" + i)
                    .filter(r -> ResourcePartition.of(r, LockstepExtension.PARTITIONS) == partition).findFirst()
                    .orElseThrow();
            try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(cluster.kafka())
                            .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("broker-clock"));
                    LockClient client = LockClient.start(LockClientSettings.defaults(cluster.kafka())
                            .withTopics(topics))) {
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> client.blocking().status(resource) instanceof Verdict.NotFound);
                long sent = System.nanoTime();
                assertThat(client.blocking().acquire(resource, "holder", TTL)).isInstanceOf(Verdict.Acquired.class);
                Files.writeString(offset, "+30s");
                Thread.sleep(1_500); // libfaketime reads the file again each second
                Verdict waiter = client.blocking().acquire(resource, "waiter", TTL, Duration.ofSeconds(30));
                Duration granted = Duration.ofNanos(System.nanoTime() - sent);
                assertThat(waiter).isInstanceOf(Verdict.Acquired.class);
                System.out.printf("the leader of %s-%d (broker %d) stepped its clock 30 s ahead: a %d s lease was "
                        + "granted to another owner %.1f s after its holder's send, %.1f s early for the holder%n",
                        topics.commands(), partition, FAKED, TTL.toSeconds(), granted.toMillis() / 1000.0,
                        TTL.minus(granted).toMillis() / 1000.0);

                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(worker.health().ready()
                        .warnings()).anySatisfy(w -> assertThat(w).contains(topics.commands() + "-" + partition,
                                "s ahead of this worker's clock", "its leader is broker " + FAKED + " (127.0.0.1:")));
                assertThat(worker.registry().find("lockstep.log.time.outside").tag("direction", "ahead").counters())
                        .as("counted by the broker that stamped them")
                        .allSatisfy(c -> assertThat(c.getId().getTag("broker")).startsWith(FAKED + " ("))
                        .isNotEmpty();

                // Back to 30 s behind the right time: log time stands still on the partition until the
                // leader's clock passes the last instant used there, 60 s on.
                Files.writeString(offset, "-30s");
                Thread.sleep(1_500);
                String later = resource + "-later";
                String onPartition = IntStream.range(0, 1_000).mapToObj(i -> later + i)
                        .filter(r -> ResourcePartition.of(r, LockstepExtension.PARTITIONS) == partition).findFirst()
                        .orElseThrow();
                long again = System.nanoTime();
                assertThat(client.blocking().acquire(onPartition, "holder", SHORT_TTL))
                        .isInstanceOf(Verdict.Acquired.class);
                assertThat(client.blocking().acquire(onPartition, "waiter", SHORT_TTL, Duration.ofSeconds(120)))
                        .isInstanceOf(Verdict.Acquired.class);
                Duration late = Duration.ofNanos(System.nanoTime() - again);
                System.out.printf("then stepped 60 s back, to 30 s behind: a %d s lease was granted to another owner "
                        + "%.1f s after its holder's send, %.1f s late%n", SHORT_TTL.toSeconds(),
                        late.toMillis() / 1000.0, late.minus(SHORT_TTL).toMillis() / 1000.0);
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(worker.health().ready()
                        .warnings()).anySatisfy(w -> assertThat(w).contains(topics.commands() + "-" + partition,
                                "s before it sent it", "its leader is broker " + FAKED + " (127.0.0.1:")));
            } finally {
                Files.writeString(offset, "+0");
            }
            ReplayReport replay = new Replay(cluster.kafka(), env.database(), topics).run(Optional.empty(),
                    TimeWindow.ALL, (read, total) -> { });
            assertThat(replay.divergences()).as(replay.text()).isEmpty();
            assertThat(replay.unverifiable()).as(replay.text()).isEmpty();
        }
    }

    /** A partition of {@code topic} the faked node leads: one it is the preferred leader of, elected if need be. */
    private static int ledByFaked(ClusterLoad cluster, String topic) throws Exception {
        TopicDescription description = cluster.admin().describeTopics(Set.of(topic)).allTopicNames()
                .get(30, TimeUnit.SECONDS).get(topic);
        TopicPartitionInfo preferred = description.partitions().stream()
                .filter(p -> p.replicas().get(0).id() == FAKED).findFirst()
                .orElseThrow(() -> new IllegalStateException("node " + FAKED + " is no partition's preferred leader"));
        TopicPartition partition = new TopicPartition(topic, preferred.partition());
        if (preferred.leader().id() != FAKED) {
            cluster.admin().electLeaders(ElectionType.PREFERRED, Set.of(partition)).all().get(30, TimeUnit.SECONDS);
        }
        return partition.partition();
    }
}
