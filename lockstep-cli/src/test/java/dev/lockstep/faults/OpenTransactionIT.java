package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.core.Verdict;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A producer of commands killed (SIGKILL) inside a Kafka transaction, as a Spring service with a
 * transactional {@code KafkaTemplate} is when its process dies mid-send. The worker reads
 * committed records only, so until the transaction ends every lock of its partition waits: the
 * broker would end it at the producer's {@code transaction.timeout.ms}, 60 s by default. The
 * worker, with its shipped defaults, aborts it once it has been open for the transaction limit
 * (5 s): a caller on that partition is answered within 10 s, and the killed producer's command
 * does not count.
 */
@Tag("serial") // measures how soon a caller is answered
class OpenTransactionIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    /** The recovery goal (docs/operations.md#recovery): the limit, a check's interval, the abort and a fetch fit. */
    private static final Duration BOUND = Duration.ofSeconds(10);

    private static RunningWorker worker;
    private static LockClient client;

    @BeforeAll
    static void start() {
        worker = env.startWorker();
        client = env.startClient(LockClientSettings.defaults(env.kafka()).withTopics(env.topics())
                .withRequestTimeout(Duration.ofSeconds(90)));
        assertThat(env.workerSettings().transactionLimit()).as("the shipped limit")
                .isEqualTo(WorkerSettings.DEFAULT_TRANSACTION_LIMIT);
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"java", "spring"})
    void aProducerKilledInsideATransactionHoldsItsPartitionForTheLimitOnly(String kind) throws Exception {
        String resource = "open-txn-" + kind + "-" + Commands.newId();
        String killedRequest = Commands.newId();
        // Answered before the fault: the partition is applied.
        assertThat(client.status(resource).get(30, TimeUnit.SECONDS)).isNotNull();
        double abortedBefore = aborted();
        long warningsBefore = abortWarnings();

        Process producer = startProducer(kind, resource,
                Commands.acquire(killedRequest, resource, "killed-owner", 60).toString());
        try {
            awaitSent(producer);
        } finally {
            producer.destroyForcibly().waitFor();
        }
        long killedAt = System.nanoTime();

        CompletableFuture<Verdict> probe = client.status(resource);
        Verdict answer = probe.get(90, TimeUnit.SECONDS);
        Duration waited = Duration.ofNanos(System.nanoTime() - killedAt);
        System.out.printf("open transaction (%s producer killed): a status on its partition waited %d ms%n", kind,
                waited.toMillis());
        FaultRun.appendResult(String.format("| recovery: %s producer killed inside a transaction | %d ms |%n", kind,
                waited.toMillis()));

        assertThat(waited).as("the wait of a caller on the killed producer's partition").isLessThan(BOUND);
        assertThat(answer).as("the killed producer's acquire does not count").isInstanceOf(Verdict.NotFound.class);
        assertThat(aborted()).as("transactions the worker aborted").isEqualTo(abortedBefore + 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> abortWarnings() == warningsBefore + 1);
        // An auditor reads committed records only, as the worker does: the aborted acquire is not replayed.
        ReplayReport replay = new Replay(env.kafka(), env.database(), env.topics()).run(Optional.empty(),
                TimeWindow.ALL, (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
        assertThat(replay.unverifiable()).as(replay.text()).isEmpty();
    }

    /** /health/ready's warnings of an abort. */
    private static long abortWarnings() {
        return worker.health().ready().warnings().stream().filter(w -> w.contains("aborted the transaction of producer"))
                .count();
    }

    private static double aborted() {
        return worker.registry().get("lockstep.transactions.aborted").counter().count();
    }

    private static Process startProducer(String kind, String key, String value) throws IOException {
        File log = ChildClients.directory("open-transaction").resolve(kind + ".log").toFile();
        return new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), KilledInTransaction.class.getName(),
                kind, env.kafka().bootstrapServers(), env.topics().commands(), key, value))
                .redirectError(ProcessBuilder.Redirect.appendTo(log)).start();
    }

    private static void awaitSent(Process producer) throws InterruptedException, ExecutionException, TimeoutException {
        CompletableFuture<Boolean> sent = CompletableFuture.supplyAsync(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(producer.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.equals("SENT")) {
                        return true;
                    }
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        });
        assertThat(sent.get(60, TimeUnit.SECONDS)).as("the producer sent inside its transaction (see its log)").isTrue();
    }
}
