package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Verdict;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.history.History;
import dev.lockstep.history.HistoryChecker;
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
import java.time.Clock;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A partition leader whose clock steps 30 s ahead, then to 30 s behind (libfaketime in one of
 * three KRaft nodes' JVMs). Time passes at the worker's measured ticks (docs/protocol.md, "Time"),
 * so no lease ends early or late for its holder: a waiter is granted the lease no sooner than its
 * TTL after the holder's send, and no later than the slack and a few ticks after; Java clients
 * holding and waiting on the leader's partitions all the while never act as holders at once; the
 * worker tells of each step, naming that broker; and {@code lockstep replay} agrees with every reply.
 */
@Tag("serial") // three KRaft nodes in child JVMs
@Tag(ClusterFaultsIT.LONG)
class BrokerClockIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int FAKED = 2;
    private static final Duration TTL = Duration.ofSeconds(10);
    private static final Duration SHORT_TTL = Duration.ofSeconds(3);
    /** How much longer than its TTL a lease may last: the slack it is dated by, ticks and batches. */
    private static final Duration LATE = Duration.ofSeconds(3);

    private static Path offset;
    private static ClusterLoad cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        offset = Files.writeString(Files.createTempFile("broker-clock", ".faketime"), "+0");
        cluster = ClusterLoad.start(Map.of(FAKED, WorkerClockIT.fakedClock(offset)));
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aLeaderClockSteppedAheadThenBehindEndsNoLeaseEarlyNorLateAndIsToldNamingTheBroker() throws Exception {
        TopicNames topics = topics("-broker-clock");
        int partition = ledByFaked(topics.commands());
        String resource = on(partition, "clocked-");
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(cluster.kafka())
                        .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("broker-clock"));
                LockClient client = LockClient.start(LockClientSettings.defaults(cluster.kafka()).withTopics(topics))) {
            await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                    .until(() -> client.blocking().status(resource) instanceof Verdict.NotFound);
            long sent = System.nanoTime();
            assertThat(client.blocking().acquire(resource, "holder", TTL)).isInstanceOf(Verdict.Acquired.class);
            step("+30s");
            Verdict waiter = client.blocking().acquire(resource, "waiter", TTL, Duration.ofSeconds(30));
            Duration granted = Duration.ofNanos(System.nanoTime() - sent);
            assertThat(waiter).isInstanceOf(Verdict.Acquired.class);
            System.out.printf("the leader of %s-%d (broker %d) stepped its clock 30 s ahead: a %d s lease was "
                    + "granted to another owner %.2f s after its holder's send%n", topics.commands(), partition,
                    FAKED, TTL.toSeconds(), granted.toMillis() / 1000.0);
            assertThat(granted).as("not early for its holder, nor much later").isBetween(TTL, TTL.plus(LATE));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(worker.health().ready()
                    .warnings()).anySatisfy(w -> assertThat(w).contains(topics.commands() + "-" + partition,
                            "s ahead of this worker's clock", "its leader is broker " + FAKED + " (127.0.0.1:")));
            assertThat(worker.registry().find("lockstep.log.time.outside").tag("direction", "ahead").counters())
                    .as("counted by the broker that stamped them")
                    .allSatisfy(c -> assertThat(c.getId().getTag("broker")).startsWith(FAKED + " ("))
                    .isNotEmpty();

            // To 30 s behind the right time: log time steps 60 s back, the partition's time does not.
            step("-30s");
            String later = on(partition, resource + "-later");
            long again = System.nanoTime();
            assertThat(client.blocking().acquire(later, "holder", SHORT_TTL)).isInstanceOf(Verdict.Acquired.class);
            assertThat(client.blocking().acquire(later, "waiter", SHORT_TTL, Duration.ofSeconds(120)))
                    .isInstanceOf(Verdict.Acquired.class);
            Duration behind = Duration.ofNanos(System.nanoTime() - again);
            System.out.printf("then stepped 60 s back, to 30 s behind: a %d s lease was granted to another owner "
                    + "%.2f s after its holder's send%n", SHORT_TTL.toSeconds(), behind.toMillis() / 1000.0);
            assertThat(behind).as("not a minute late").isBetween(SHORT_TTL, SHORT_TTL.plus(LATE));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(worker.health().ready()
                    .warnings()).anySatisfy(w -> assertThat(w).contains(topics.commands() + "-" + partition,
                            "s before it sent it", "its leader is broker " + FAKED + " (127.0.0.1:")));
        } finally {
            step("+0");
        }
        assertReplayed(topics);
    }

    @Test
    void clientsHoldingOnTheLeadersPartitionWhileItsClockStepsNeverActAsHoldersAtOnce() throws Exception {
        TopicNames topics = topics("-broker-clock-beliefs");
        int partition = ledByFaked(topics.commands());
        String lock = on(partition, "stepped-lock-");
        String sem = on(partition, "stepped-sem-");
        try (BeliefRecorder recorder = BeliefRecorder.start(Clock.systemUTC(), new FencedStore())) {
            try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(cluster.kafka())
                            .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("clock-beliefs"));
                    LockClient one = LockClient.start(LockClientSettings.defaults(cluster.kafka()).withTopics(topics));
                    LockClient two = LockClient.start(LockClientSettings.defaults(cluster.kafka()).withTopics(topics));
                    JavaHolders java = new JavaHolders(recorder, FaultRun.SEED)) {
                await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
                        .until(() -> one.blocking().status(lock) instanceof Verdict.NotFound);
                Contention exclusive = Contention.exclusive(lock, Duration.ofSeconds(2), Duration.ofSeconds(15),
                        Duration.ofMillis(200), Duration.ofMillis(1_500));
                Contention shared = Contention.exclusive(sem, Duration.ofSeconds(2), Duration.ofSeconds(15),
                        Duration.ofMillis(200), Duration.ofMillis(1_500)).shared(2);
                java.start("java-1", one, exclusive);
                java.start("java-2", two, exclusive);
                java.start("java-3", one, exclusive.holding(Duration.ofSeconds(2), Duration.ofSeconds(4)));
                java.start("java-4", one, shared);
                java.start("java-5", two, shared);
                java.start("java-6", two, shared.holding(Duration.ofSeconds(2), Duration.ofSeconds(4)));
                TimeUnit.SECONDS.sleep(5);
                step("+30s");
                TimeUnit.SECONDS.sleep(10);
                step("-30s");
                TimeUnit.SECONDS.sleep(10);
                step("+0");
                TimeUnit.SECONDS.sleep(5);
                java.stop(Duration.ofSeconds(40));
            } finally {
                step("+0");
            }
            History history = Histories.awaitAnswered(cluster.kafka(), topics, Duration.ofSeconds(60))
                    .withBeliefs(recorder.beliefs());
            HistoryChecker.Result result = HistoryChecker.check(history, HistoryChecker.BrokerClocks.SKEWED);
            System.out.println("leader's clock stepped 30 s ahead, then 30 s behind, under Java clients: " + result
                    + ", " + recorder.beliefs().size() + " beliefs");
            assertThat(recorder.beliefs()).as("beliefs recorded").hasSizeGreaterThan(20);
            assertThat(result.leasesGranted()).as("leases granted").isGreaterThan(20);
            result.assertSafe();
        }
        assertReplayed(topics);
    }

    /** Sets the faked node's clock offset (libfaketime reads its file again each second). */
    private static void step(String to) throws Exception {
        Files.writeString(offset, to);
        TimeUnit.MILLISECONDS.sleep(1_500);
    }

    private static TopicNames topics(String suffix) throws Exception {
        TopicNames topics = env.topics().suffixed(suffix);
        new TopicApplier(cluster.admin()).apply(TopicSpecs.renamed(topics, LockstepExtension.PARTITIONS, (short) 3));
        return topics;
    }

    private static void assertReplayed(TopicNames topics) {
        ReplayReport replay = new Replay(cluster.kafka(), env.database(), topics).run(Optional.empty(),
                TimeWindow.ALL, (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
        assertThat(replay.unverifiable()).as(replay.text()).isEmpty();
    }

    /** A resource named {@code prefix} and a number that lives on {@code partition}. */
    private static String on(int partition, String prefix) {
        return IntStream.range(0, 1_000).mapToObj(i -> prefix + i)
                .filter(r -> ResourcePartition.of(r, LockstepExtension.PARTITIONS) == partition).findFirst()
                .orElseThrow();
    }

    /** A partition of {@code topic} the faked node leads: one it is the preferred leader of, elected if need be. */
    private static int ledByFaked(String topic) throws Exception {
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
