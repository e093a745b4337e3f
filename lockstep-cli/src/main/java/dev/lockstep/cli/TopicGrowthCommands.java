package dev.lockstep.cli;

import dev.lockstep.engine.Layout;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.GrowthStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.store.StoreException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code lockstep topics grow} and {@code lockstep topics status}: a growth of the command topic (docs/operations.md, "Adding partitions"). */
final class TopicGrowthCommands {

    private TopicGrowthCommands() {
    }

    @Command(name = "grow", mixinStandardHelpOptions = true,
            description = {"Grow the command topic and the events topic to N partitions; a running worker seals "
                    + "every partition and carries each moving resource's state over, answering every command "
                    + "meanwhile. Partitions are never removed: N must be larger than the topic has.",
                "The replies topic is left as it is (a reply goes to the partition its client reads)."})
    static final class Grow implements Callable<Integer> {

        @Mixin
        KafkaOptions kafka;

        @Spec
        CommandSpec spec;

        @Option(names = "--partitions", required = true, paramLabel = "N", description = "The new partition count.")
        int partitions;

        @Override
        public Integer call() {
            Logging.quietKafka();
            TopicNames topics = kafka.topics();
            PrintWriter out = spec.commandLine().getOut();
            try (Admin admin = admin(kafka)) {
                int commands = count(admin, topics.commands());
                if (partitions <= commands) {
                    spec.commandLine().getErr().println("lockstep: " + topics.commands() + " has " + commands
                            + " partitions; a topic only grows (Kafka cannot remove partitions), so --partitions "
                            + "must be larger");
                    return ExitCodes.USAGE;
                }
                // Events first: the worker starts the growth only once the events topic has as many.
                for (String topic : List.of(topics.events(), topics.commands())) {
                    if (count(admin, topic) < partitions) {
                        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all()
                                .get(30, TimeUnit.SECONDS);
                    }
                    out.println(topic + ": " + partitions + " partitions");
                }
                out.println("a running worker grows " + topics.commands() + " from " + commands + " to " + partitions
                        + " partitions; lockstep topics status says when it finished");
                out.flush();
                return ExitCodes.OK;
            } catch (KafkaException | ExecutionException | TimeoutException e) {
                spec.commandLine().getErr().println("lockstep: cannot grow the topics at "
                        + kafka.settings().bootstrapServers() + ": " + e.getMessage());
                return ExitCodes.ERROR;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.ERROR;
            }
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
            description = "The command topic's partition count on the cluster and as its partitions route (the "
                    + "database's record), and each growth: under way (which partitions still await resources) "
                    + "or finished.")
    static final class Status implements Callable<Integer> {

        @Mixin
        KafkaOptions kafka;

        @Mixin
        DatabaseOptions db;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            Logging.quietKafka();
            TopicNames topics = kafka.topics();
            PrintWriter out = spec.commandLine().getOut();
            try (Admin admin = admin(kafka); PostgresLockStore store = PostgresLockStore.open(db.settings(1))) {
                Map<Integer, Layout> layouts = store.layouts(topics.commands());
                out.println(topics.commands() + ": " + count(admin, topics.commands()) + " partitions on the cluster; "
                        + layouts.size() + " started, routing by " + layouts.values().stream()
                                .map(Layout::partitions).distinct().sorted().map(String::valueOf).toList());
                out.println(topics.events() + ": " + count(admin, topics.events()) + " partitions");
                for (GrowthStore.TopicGrowth growth : store.growths(topics.commands())) {
                    List<Integer> awaiting = layouts.entrySet().stream()
                            .filter(e -> e.getKey() < growth.to() && (e.getValue().partitions() < growth.to()
                                    || e.getValue().growing())).map(Map.Entry::getKey).toList();
                    out.println("growth from " + growth.from() + " to " + growth.to() + ": started " + growth.startedAt()
                            + growth.finishedAt().map(at -> ", finished " + at).orElse(", under way; partitions not "
                                    + "yet done: " + awaiting));
                }
                out.flush();
                return ExitCodes.OK;
            } catch (KafkaException | ExecutionException | TimeoutException | StoreException e) {
                spec.commandLine().getErr().println("lockstep: " + e.getMessage());
                return ExitCodes.ERROR;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCodes.ERROR;
            }
        }
    }

    private static Admin admin(KafkaOptions kafka) {
        // An unreachable broker is said in one line after 15 s, not after a minute of client retries.
        return Admin.create(kafka.settings().with(Map.of(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000), Map.of()));
    }

    private static int count(Admin admin, String topic)
            throws ExecutionException, TimeoutException, InterruptedException {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(15, TimeUnit.SECONDS).get(topic).partitions()
                .size();
    }
}
