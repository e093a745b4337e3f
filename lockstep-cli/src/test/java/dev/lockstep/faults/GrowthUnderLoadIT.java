package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.history.History;
import dev.lockstep.history.HistoryChecker;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.worker.WorkerSettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The command topic grown from 12 to 16 partitions while the fault workload runs on two workers
 * (waiters, shares, an election, cancellations, retries), its producers learning the new count
 * within a second: every request is answered, the history checker finds no violation, and
 * {@code lockstep replay} reproduces every reply, event and row.
 *
 * <p>Not in CI yet ({@code -Dit.test=GrowthUnderLoadIT -Dit.excludedGroups=none}): the replay finds
 * no divergence, but the checker still reports overlaps it has not been taught to place. It infers
 * each partition's token base from the grants it saw, and a growth's taken raises a partition's
 * base mid-log, so it misplaces waiters' grants after a growth; each reported overlap is yet to be
 * told apart from a real one.
 */
@Tag("cluster")
class GrowthUnderLoadIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void growingUnderTheFaultWorkloadKeepsEveryLeaseAndAnswersEveryRequest() throws Exception {
        TopicNames topics = env.topics().suffixed("-growload");
        KafkaSettings kafka = env.kafka();
        LockstepExtension.createTopics(kafka, topics, 12);
        WorkerSettings settings = WorkerSettings.defaults(kafka)
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("growth-load");
        KafkaSettings producers = new KafkaSettings(kafka.bootstrapServers(), Map.of("metadata.max.age.ms", "1000"));
        Set<String> sent;
        try (Workload load = Workload.start(producers, topics.commands(), FaultRun.SEED + 44, 8, 12,
                Duration.ofMillis(12))) {
            env.startWorker(settings);
            env.startWorker(settings);
            load.awaitPublished(1_500);
            try (Admin admin = Admin.create(kafka.with(Map.of()))) {
                admin.createPartitions(Map.of(topics.events(), NewPartitions.increaseTo(16))).all().get();
                admin.createPartitions(Map.of(topics.commands(), NewPartitions.increaseTo(16))).all().get();
            }
            long grown = System.nanoTime();
            await().atMost(Duration.ofSeconds(60)).until(() -> Histories.growthFinished(env, topics));
            System.out.printf("growth from 12 to 16 partitions under load finished in %d ms%n",
                    (System.nanoTime() - grown) / 1_000_000);
            load.awaitPublished(1_500);
            sent = load.finish();
        }
        History history = Histories.await(kafka, topics, sent, Duration.ofSeconds(120));
        HistoryChecker.Result result = HistoryChecker.check(history);
        System.out.println("growth under load: " + result);
        ReplayReport replay = new Replay(kafka, env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                (read, total) -> { });
        System.out.println("lockstep replay after the growth: " + replay.text().strip());
        result.violations().stream().limit(Integer.getInteger("lockstep.around.count", 3)).forEach(violation -> printAround(history, violation));
        result.assertSafe();
        assertThat(result.requestsSent()).isGreaterThan(2_500);
        assertThat(result.leasesGranted()).isGreaterThan(50);
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
    }

    /** The records around the positions a violation names, each with its replies: to read beside it. */
    private static void printAround(History history, String violation) {
        java.util.regex.Matcher at = java.util.regex.Pattern.compile("p(\\d+)@(\\d+)").matcher(violation);
        System.out.println("violation: " + violation);
        while (at.find()) {
            int partition = Integer.parseInt(at.group(1));
            long offset = Long.parseLong(at.group(2));
            history.log().stream().filter(r -> r.partition() == partition && Math.abs(r.offset() - offset) <= Integer.getInteger("lockstep.around", 4))
                    .sorted(java.util.Comparator.comparingLong(dev.lockstep.history.LoggedRecord::offset))
                    .forEach(r -> {
                        String value = r.value() == null ? "(no value)" : new String(r.value());
                        String id = value.replaceAll(".*\"request_id\":\"([^\"]*)\".*", "$1");
                        System.out.println("  p" + partition + "@" + r.offset() + " " + r.logAppendTime() + " key="
                                + (r.key() == null ? "-" : new String(r.key())) + " " + value);
                        history.replies().getOrDefault(id, List.of()).forEach(reply ->
                                System.out.println("      -> " + new String(reply)));
                    });
        }
    }

}
