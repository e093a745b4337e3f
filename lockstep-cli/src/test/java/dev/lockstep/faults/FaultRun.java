package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.history.History;
import dev.lockstep.history.HistoryChecker;
import dev.lockstep.history.LoggedRecord;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * One fault test: a randomized workload runs while the test injects its fault; then the load
 * stops, every request is awaited, and the history is checked. The figures go to stdout and to
 * {@code target/reliability/results.md}, where {@code docs/reliability.md} takes them from.
 *
 * <pre>{@code
 * try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "worker SIGKILL")) {
 *     run.load().awaitPublished(500);
 *     worker.kill();
 *     run.faultInjected();
 *     // ... recover ...
 *     run.check();
 * }
 * }</pre>
 */
final class FaultRun implements AutoCloseable {

    /**
     * {@code -Dlockstep.faults.seed=N} replays a workload (each test mixes in its name); the seed
     * is printed with every result. Fault timing still depends on the machine.
     */
    static final long SEED = Long.getLong("lockstep.faults.seed", 20261202L);

    private static final int CLIENTS = 8;
    private static final int RESOURCES = 6;
    private static final Duration CLIENT_PAUSE = Duration.ofMillis(12);

    private final DatabaseSettings database;
    private final KafkaSettings kafka;
    private final TopicNames topics;
    private final String fault;
    private final Workload load;
    private int faults;

    private FaultRun(DatabaseSettings database, KafkaSettings kafka, TopicNames topics, String fault, long seed) {
        this.database = database;
        this.kafka = kafka;
        this.topics = topics;
        this.fault = fault;
        this.load = Workload.start(kafka, topics.commands(), seed, CLIENTS, RESOURCES, CLIENT_PAUSE);
    }

    /** @param env whose database the workers use: the partitions' recorded starts come from there */
    static FaultRun start(LockstepExtension env, KafkaSettings kafka, TopicNames topics, String fault) {
        return start(env.database(), kafka, topics, fault);
    }

    /** @param database the workers' database, when it is not the suite's (a server the test runs itself) */
    static FaultRun start(DatabaseSettings database, KafkaSettings kafka, TopicNames topics, String fault) {
        return new FaultRun(database, kafka, topics, fault, SEED + fault.hashCode());
    }

    Workload load() {
        return load;
    }

    void faultInjected() {
        faults++;
    }

    /** Stops the load, waits for every reply, checks the history and fails on any violation. */
    HistoryChecker.Result check() {
        Set<String> sent = load.finish();
        History history = Histories.await(kafka, topics, sent, Duration.ofSeconds(120));
        HistoryChecker.Result result = HistoryChecker.check(history);
        report(result);
        // Replayed before the check fails, so that a violation comes with what the replay says of it.
        ReplayReport replay = replay();
        System.out.println("lockstep replay after " + fault + ": " + replay.text().strip());
        DivergedPartitions.keep(replay, kafka, topics, ChildClients.directory(fault.replaceAll("[^A-Za-z0-9]+", "-")))
                .forEach(kept -> System.out.println("a diverging partition kept in " + kept));
        printRecordsNamedBy(result, history);
        result.assertSafe();
        assertThat(replay.divergences()).as("what lockstep replay found").isEmpty();
        assertThat(replay.unverifiable()).as("what lockstep replay could not verify").isEmpty();
        assertThat(replay.eventsCompared()).as("events compared by the replay").isPositive();
        assertThat(faults).as("faults injected").isPositive();
        assertThat(result.requestsSent()).as("requests sent").isGreaterThan(500);
        assertThat(result.leasesGranted()).as("leases granted").isGreaterThan(50);
        return result;
    }

    /** The command records of the requests a violation names, to read beside it. */
    private static void printRecordsNamedBy(HistoryChecker.Result result, History history) {
        for (LoggedRecord record : history.log()) {
            if (record.value() == null) {
                continue;
            }
            String command = new String(record.value(), StandardCharsets.UTF_8);
            if (result.violations().stream().anyMatch(v -> command.contains("\"request_id\":\"") && v.contains(
                    command.substring(command.indexOf("\"request_id\":\"") + 14).split("\"", 2)[0]))) {
                System.out.println("  named by a violation: p" + record.partition() + "@" + record.offset() + " at " + record.logAppendTime()
                        + ": " + command);
            }
        }
    }

    /** {@code lockstep replay} over the run's topics and database, as an auditor runs it. */
    ReplayReport replay() {
        return new Replay(kafka, database, topics).run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
    }

    private void report(HistoryChecker.Result result) {
        String line = String.format("| %s | %d | %,d | %,d | %,d | %,d | %d | %d | %d |%n", fault, SEED,
                result.requestsSent(), result.logRecords(), result.replies(), result.leasesGranted(), faults,
                load.failedSends(), result.violations().size());
        System.out.print("fault run: " + line);
        appendResult(line);
    }

    /** Appends a table row to {@code target/reliability/results.md}, where docs/reliability.md takes its figures from. */
    static void appendResult(String line) {
        try {
            Path file = Path.of("target", "reliability", "results.md");
            Files.createDirectories(file.getParent());
            Files.writeString(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        load.close();
    }
}
