package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.LockClient;
import dev.lockstep.core.Verdict;
import dev.lockstep.history.Belief;
import dev.lockstep.history.History;
import dev.lockstep.history.HistoryChecker;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.awaitility.Awaitility;

/**
 * A run of real clients whose beliefs are checked ({@code ClientBeliefsIT}): the recorder and the
 * fenced store they tell, the Java clients in this JVM and the client processes, the faults
 * injected and when, and the end: every client stopped, the history read back and checked with
 * what they believed ({@link HistoryChecker}), {@code lockstep replay} run over it, the figures
 * reported ({@code target/faults/NAME/report.txt}, {@code beliefs.txt}, and a row of
 * {@code target/reliability/results.md}).
 */
final class BeliefRun implements AutoCloseable {

    /** How long a fault lasts: longer than every TTL of the run. */
    static final Duration FAULT = Duration.ofSeconds(5);
    /** The holder that frozen waiters queue behind: raw commands, not a client that acts. */
    private static final String GATE = "gate";
    private static final long GATE_TTL_SECONDS = 120;
    /** A gate closed while a client holds waits for it. */
    private static final long GATE_WAIT_MS = 60_000;

    /** A fault, and when it began and ended (to read the violations beside). */
    record Fault(String what, Instant from, Instant until) {

        @Override
        public String toString() {
            return from + " .. " + until + ": " + what;
        }
    }

    private final LockstepExtension env;
    private final TopicNames topics;
    private final String name;
    private final Path dir;
    private final BeliefRecorder recorder;
    private final JavaHolders java;
    private final ChildClients children;
    private final Instant start;
    private final List<Fault> faults = new ArrayList<>(); // guarded by this
    private final List<String> laps = new ArrayList<>(); // guarded by this

    private BeliefRun(LockstepExtension env, TopicNames topics, String name, Path dir, BeliefRecorder recorder)
            throws IOException {
        this.env = env;
        this.topics = topics;
        this.name = name;
        this.dir = dir;
        this.recorder = recorder;
        this.java = new JavaHolders(recorder, FaultRun.SEED + name.hashCode());
        this.children = new ChildClients(env, topics, recorder, dir);
        this.start = recorder.now();
    }

    /** A run on {@code topics} (created here), named {@code name} in its reports. */
    static BeliefRun start(LockstepExtension env, TopicNames topics, String name) throws IOException {
        LockstepExtension.createTopics(env.kafka(), topics);
        return new BeliefRun(env, topics, name, ChildClients.directory(name), BeliefRecorder.start(Clock.systemUTC(),
                new FencedStore()));
    }


    BeliefRecorder recorder() {
        return recorder;
    }

    JavaHolders java() {
        return java;
    }

    ChildClients children() {
        return children;
    }

    Instant now() {
        return recorder.now();
    }

    Instant started() {
        return start;
    }

    /** A fault that began at {@code from} and is over now. */
    synchronized void fault(String what, Instant from) {
        faults.add(new Fault(what, from, recorder.now()));
    }

    /** Notes where the run's time went. */
    synchronized void lap(String what) {
        laps.add(String.format("%5.1f s: %s", Duration.between(start, recorder.now()).toMillis() / 1000.0, what));
        System.out.println(name + ": " + laps.get(laps.size() - 1));
    }

    /** A holder the test controls takes {@code resource} (for two minutes), so that whoever asks next waits. */
    void closeGate(String resource) {
        send(Commands.acquire(Commands.newId(), resource, GATE, GATE_TTL_SECONDS).put("wait_ms", GATE_WAIT_MS));
    }

    /** The holder of {@link #closeGate} lets go: the first waiter is granted. */
    void openGate(String resource) {
        send(Commands.release(Commands.newId(), resource, GATE));
    }

    private void send(ObjectNode command) {
        env.send(topics.commands(), command.path("resource").asText().getBytes(StandardCharsets.UTF_8),
                command.toString().getBytes(StandardCharsets.UTF_8), null);
    }

    /** Until {@code client}'s acquire waits in the resource's queue. */
    static void awaitQueued(LockClient direct, String resource, String client) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> direct.blocking().status(resource, client) instanceof Verdict.Locked locked
                        && locked.position().isPresent());
    }

    /** Until every resource's partition answers: the workers run (again). */
    static void awaitAnswering(LockClient client, String... resources) {
        Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> Arrays.stream(resources).allMatch(r -> client.blocking().status(r) != null));
    }

    static void freeze(ChildClients.Child... frozen) throws InterruptedException {
        for (ChildClients.Child child : frozen) {
            assertThat(child.freeze()).as("SIGSTOP to " + child.client()).isTrue();
        }
    }

    static void thaw(ChildClients.Child... frozen) throws InterruptedException {
        for (ChildClients.Child child : frozen) {
            child.thaw();
        }
    }

    /**
     * In the background: freezes the first of {@code candidates} whose job began a moment ago and
     * still runs (so that its job has most of its time to run) for {@link #FAULT}, then thaws it.
     * Its JVM stops; its job runs on.
     */
    CompletableFuture<Void> freezeAFreshJob(List<ChildClients.Child> candidates) {
        return CompletableFuture.runAsync(() -> {
            ChildClients.Child fresh = Awaitility.await().atMost(Duration.ofSeconds(50)).pollInterval(Duration.ofMillis(20))
                    .until(() -> candidates.stream().filter(c -> recorder.in(c.client(), BeliefRecorder.State.HOLDING)
                            .filter(held -> held.compareTo(Duration.ofMillis(200)) >= 0
                                    && held.compareTo(Duration.ofMillis(1000)) <= 0).isPresent())
                            .findFirst(), Optional::isPresent).orElseThrow();
            try {
                Instant from = recorder.now();
                freeze(fresh);
                Thread.sleep(FAULT.toMillis());
                thaw(fresh);
                fault(fresh.client() + " (its JVM) frozen while its job ran", from);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }, task -> {
            Thread freezer = new Thread(task, "freezer");
            freezer.setDaemon(true);
            freezer.start();
        });
    }

    /**
     * Stops every client, reads the history back and checks it with what they believed, replays
     * it, reports, and fails on any violation or divergence, or on a run that tested too little.
     *
     * @param faultsExpected how many faults the run injected
     * @param workers the run's workers, stopped once the history is read and before it is replayed:
     *     a running worker ticks while leases may be live, so its database trails the log by a tick
     */
    HistoryChecker.Result stopAndCheck(int faultsExpected, List<? extends AutoCloseable> workers)
            throws Exception {
        children.askToStop();
        java.stop(Duration.ofSeconds(40));
        List<String> killed = children.awaitStopped(Duration.ofSeconds(40));
        lap("every client stopped");
        History history = Histories.awaitAnswered(env.kafka(), topics, Duration.ofSeconds(60))
                .withBeliefs(recorder.beliefs());
        HistoryChecker.Result result = HistoryChecker.check(history);
        for (AutoCloseable worker : workers) {
            worker.close();
        }
        ReplayReport replay = new Replay(env.kafka(), env.database(), topics)
                .run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
        lap("history read, checked and replayed");
        DivergedPartitions.keep(replay, env.kafka(), topics, dir)
                .forEach(kept -> System.out.println(name + ": a diverging partition kept in " + kept));
        report(result, replay, killed);

        assertThat(recorder.unreadable()).as("lines the recorder could not read").isEmpty();
        assertThat(recorder.beliefsByKind()).as("beliefs recorded by every kind of client")
                .containsOnlyKeys(ClientKind.values()).allSatisfy((kind, count) -> assertThat(count).isPositive());
        assertThat(recorder.store().accepted()).as("writes accepted by the fenced store").isNotEmpty();
        assertThat(result.leasesGranted()).as("leases granted").isGreaterThan(50);
        result.assertSafe();
        assertThat(replay.divergences()).as("what lockstep replay found").isEmpty();
        assertThat(replay.unverifiable()).as("what lockstep replay could not verify").isEmpty();
        synchronized (this) {
            assertThat(faults).as("faults injected").hasSize(faultsExpected);
        }
        assertThat(killed).as("clients that did not stop when asked").isEmpty();
        return result;
    }

    private synchronized void report(HistoryChecker.Result result, ReplayReport replay, List<String> killed)
            throws IOException {
        List<String> report = new ArrayList<>(List.of(
                name + ": " + result,
                "beliefs by client kind: " + recorder.beliefsByKind(),
                "leases handed over already ended, not acted on: " + recorder.staleHandOvers(),
                "writes the fenced store accepted: " + recorder.store().accepted()
                        + "; refused: " + recorder.store().refused().size(),
                "exit codes: " + children.exits() + (killed.isEmpty() ? "" : "; killed after the run: " + killed),
                "lockstep replay: " + replay.text().strip()));
        report.addAll(laps);
        faults.forEach(fault -> report.add("fault " + fault));
        recorder.store().refused().forEach(refused -> report.add("refused write: " + refused));
        result.violations().forEach(violation -> report.add("violation: " + violation));
        report.forEach(System.out::println);
        Files.write(dir.resolve("report.txt"), report);
        Files.write(dir.resolve("beliefs.txt"), recorder.beliefs().stream().sorted(Comparator.comparing(Belief::from))
                .map(Belief::toString).toList());
        FaultRun.appendResult(String.format("| %s: beliefs %s | %d | %,d | %,d | %,d | %,d | %d | %d | %d |%n", name,
                recorder.beliefsByKind(), FaultRun.SEED, result.requestsSent(), result.logRecords(), result.replies(),
                result.leasesGranted(), faults.size(), 0, result.violations().size()));
    }

    /** Thaws and stops whatever still runs. */
    @Override
    public void close() throws IOException, InterruptedException {
        try (recorder; java) {
            children.close();
        }
    }
}
