package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code lockstep topics grow} and {@code lockstep topics status} against a running worker (docs/operations.md, "Adding partitions"). */
class TopicsGrowIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static CliRun run(TopicNames topics, String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        full.addAll(List.of("--bootstrap-servers", env.kafka().bootstrapServers(),
                "--command-topic", topics.commands(), "--reply-topic", topics.replies(),
                "--dead-letter-topic", topics.deadLetters(), "--events-topic", topics.events()));
        return CliRun.of(Map.of(), full.toArray(String[]::new));
    }

    @Test
    void growsTheCommandAndEventsTopicsAndSaysWhenTheGrowthFinished() {
        TopicNames topics = env.topics().suffixed("-cligrow");
        LockstepExtension.createTopics(env.kafka(), topics, 2);
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("cli-grow"))) {
            // Grown before the worker started its partitions, the topic would just start with four.
            String db = env.database().jdbcUrl();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(run(topics, "topics", "status",
                    "--db-url", db).out()).contains("2 started, routing by [2]"));
            CliRun shrink = run(topics, "topics", "grow", "--partitions", "2");
            assertThat(shrink.exitCode()).isEqualTo(ExitCodes.USAGE);
            assertThat(shrink.err()).contains("only grows");

            CliRun grow = run(topics, "topics", "grow", "--partitions", "4");
            assertThat(grow.exitCode()).as(grow.err()).isZero();
            assertThat(grow.out()).contains(topics.commands() + ": 4 partitions", topics.events() + ": 4 partitions");

            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                CliRun status = run(topics, "topics", "status", "--db-url", db);
                assertThat(status.exitCode()).as(status.err()).isZero();
                assertThat(status.out()).contains(topics.commands() + ": 4 partitions on the cluster; 4 started, "
                        + "routing by [4]").contains("growth from 2 to 4: started").contains("finished");
            });
        }
    }
}
