package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The clients of a belief run that are processes of their own: {@code lockstep exec} and {@code
 * lockstep elect}, started again each time one exits (each holds one lease for one job), and the
 * Python and Node loops (clients/python/tests/belief_loop.py, clients/node/test/belief-loop.js),
 * each one process for the whole run. A test freezes and thaws them by their process IDs.
 */
final class ChildClients implements AutoCloseable {

    private static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();
    /** Debian's interpreter, where python3-confluent-kafka installs (a pyenv python on the PATH lacks it). */
    private static final String PYTHON = "/usr/bin/python3";

    /**
     * The job of an {@code exec} or {@code elect}: it dates its start on the wall clock, opens a
     * connection to the recorder that its processes hold until the last of them is dead, says
     * under which lease it started, and writes to the fenced store with its token until its time is
     * up, or until the test drains the run ({@code BELIEF_DRAIN} exists). With {@code BELIEF_IGNORE_TERM=1} it ignores SIGTERM, as a job that must not be cut short
     * does, so that only SIGKILL stops it.
     */
    private static final String JOB = String.join("\n",
            "from=$(date +%s%3N)",
            "if [ \"$BELIEF_IGNORE_TERM\" = 1 ]; then trap '' TERM; fi",
            "exec 3<>\"/dev/tcp/127.0.0.1/$BELIEF_RECORDER\" || exit 3",
            "resource=${LOCKSTEP_RESOURCE:-$LOCKSTEP_GROUP}",
            "echo \"start $BELIEF_CLIENT $resource $LOCKSTEP_OWNER $LOCKSTEP_FENCING_TOKEN ${BELIEF_LIMIT:-0} $from\" >&3",
            "end=$((from + BELIEF_JOB_MS))",
            "while [ \"$(date +%s%3N)\" -lt \"$end\" ] && [ ! -e \"$BELIEF_DRAIN\" ]; do",
            "  if [ \"${BELIEF_LIMIT:-0}\" = 0 ]; then",
            "    echo \"write $BELIEF_CLIENT $resource $LOCKSTEP_FENCING_TOKEN\" >&3; read -r answer <&3",
            "  fi",
            "  sleep 0.25",
            "done");

    private final LockstepExtension env;
    private final TopicNames topics;
    private final BeliefRecorder recorder;
    private final Path dir;
    private final List<Child> children = new ArrayList<>();

    ChildClients(LockstepExtension env, TopicNames topics, BeliefRecorder recorder, Path dir) throws IOException {
        this.env = env;
        this.topics = topics;
        this.recorder = recorder;
        this.dir = dir;
        Files.deleteIfExists(drain());
    }

    /** Once it exists, every job ends and every exec and elect exits. */
    private Path drain() {
        return dir.toAbsolutePath().resolve("drain");
    }

    /** One client: a process for the whole run, or one after another (each exec or elect holds one lease). */
    final class Child {

        private final String client;
        private final Supplier<Process> starter;
        private final boolean again;
        private final Map<Integer, Integer> exits = new TreeMap<>(); // guarded by this
        private volatile Process current;
        private volatile boolean stopping;
        private Thread runner;

        private Child(String client, Supplier<Process> starter, boolean again) {
            this.client = client;
            this.starter = starter;
            this.again = again;
        }

        String client() {
            return client;
        }

        private void start() {
            current = starter.get();
            runner = new Thread(this::run, "client-" + client);
            runner.setDaemon(true);
            runner.start();
        }

        private void run() {
            try {
                while (true) {
                    int exit = current.waitFor();
                    synchronized (this) {
                        exits.merge(exit, 1, Integer::sum);
                        if (!again || stopping) {
                            return;
                        }
                        current = starter.get();
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** SIGSTOP to the client's process (for exec and elect: the JVM; their job runs on). */
        boolean freeze() throws InterruptedException {
            return UnixSignals.send(current.pid(), "STOP");
        }

        boolean thaw() throws InterruptedException {
            return UnixSignals.send(current.pid(), "CONT");
        }

        /**
         * Asks it to stop: a loop by closing its standard input; an exec or elect is not started
         * again: one whose job runs ends it as the run drains (see {@link ChildClients#askToStop()}),
         * one that starts or waits gets SIGTERM (an acquire it sent may still be granted, to nobody,
         * for its TTL).
         */
        private synchronized void stop() throws IOException {
            stopping = true;
            if (!again) {
                current.getOutputStream().close();
            } else if (recorder.state(client) != BeliefRecorder.State.HOLDING) {
                current.destroy();
            }
        }

        /** Exit codes, and how many times each. */
        synchronized Map<Integer, Integer> exits() {
            return Map.copyOf(exits);
        }
    }

    /** {@code lockstep exec RESOURCE --ttl T --wait W -- bash -c JOB} (the default grace), started again as it exits. */
    Child exec(String client, Contention contention, Duration job, boolean ignoreTerm) {
        return add(client, true, () -> lockstep(client, job, ignoreTerm, contention.limit(), "exec",
                contention.resource(), "--owner", client, "--ttl", Long.toString(contention.ttl().toSeconds()),
                "--wait", Long.toString(contention.maxWait().toSeconds()), "--bootstrap-servers",
                bootstrap(contention.behindLink())));
    }

    /** {@code lockstep elect GROUP --candidate C --ttl T -- bash -c JOB} (the default grace), started again as it exits. */
    Child elect(String client, String group, Duration ttl, boolean behindLink, Duration job, boolean ignoreTerm) {
        return add(client, true, () -> lockstep(client, job, ignoreTerm, 0, "elect", group, "--candidate", client,
                "--ttl", Long.toString(ttl.toSeconds()), "--bootstrap-servers", bootstrap(behindLink)));
    }

    /** clients/python/tests/belief_loop.py, one process for the run. */
    Child python(String client, Contention contention) {
        return add(client, false, () -> script(client, contention, List.of(PYTHON,
                CLIENTS.resolve("python").resolve("tests").resolve("belief_loop.py").toString()),
                Map.of("PYTHONPATH", CLIENTS.resolve("python").toString())));
    }

    /** clients/node/test/belief-loop.js, one process for the run. */
    Child node(String client, Contention contention) {
        assertThat(CLIENTS.resolve("node").resolve("node_modules").resolve("kafkajs"))
                .as("the Node client's packages: npm ci --prefix " + CLIENTS.resolve("node") + " (.ci/run does)")
                .isDirectory();
        return add(client, false, () -> script(client, contention, List.of("node",
                CLIENTS.resolve("node").resolve("test").resolve("belief-loop.js").toString()), Map.of()));
    }

    private synchronized Child add(String client, boolean again, Supplier<Process> starter) {
        Child child = new Child(client, starter, again);
        children.add(child);
        child.start();
        return child;
    }

    private String bootstrap(boolean behindLink) {
        return behindLink ? env.proxiedKafka().bootstrapServers() : env.kafka().bootstrapServers();
    }

    private Process lockstep(String client, Duration job, boolean ignoreTerm, int limit, String... args) {
        List<String> line = new ArrayList<>(List.of(args));
        line.addAll(List.of("--command-topic", topics.commands(), "--reply-topic", topics.replies(),
                "--", "bash", "-c", JOB));
        return LockstepProcess.startWithOutput(dir.resolve(client + ".out").toFile(),
                dir.resolve(client + ".stderr").toFile(), Map.of("BELIEF_CLIENT", client,
                        "BELIEF_RECORDER", Integer.toString(recorder.port()), "BELIEF_JOB_MS",
                        Long.toString(job.toMillis()), "BELIEF_IGNORE_TERM", ignoreTerm ? "1" : "0",
                        "BELIEF_LIMIT", Integer.toString(limit), "BELIEF_DRAIN", drain().toString()),
                line.toArray(String[]::new));
    }

    private Process script(String client, Contention contention, List<String> command, Map<String, String> more) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(client + ".log").toFile()));
        Map<String, String> environment = builder.environment();
        environment.putAll(more);
        environment.putAll(contention.environment(client, client));
        environment.put("BELIEF_RECORDER", Integer.toString(recorder.port()));
        environment.put("LOCKSTEP_BOOTSTRAP", bootstrap(contention.behindLink()));
        environment.put("LOCKSTEP_COMMAND_TOPIC", topics.commands());
        environment.put("LOCKSTEP_REPLY_TOPIC", topics.replies());
        try {
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command, e);
        }
    }

    /**
     * Asks every client to stop: each ends what it holds at once and asks for nothing more; a
     * Python or Node loop that waits is granted as the others let go, and lets go too.
     */
    void askToStop() throws IOException {
        Files.createFile(drain());
        for (Child child : children) {
            child.stop();
        }
    }

    /** Waits for every client to exit; those still running after {@code patience} are killed and named. */
    List<String> awaitStopped(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        List<String> killed = new ArrayList<>();
        for (Child child : children) {
            child.runner.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (child.runner.isAlive()) {
                killed.add(child.client);
                child.thaw();
                child.current.destroyForcibly();
                child.runner.join(10_000);
            }
        }
        return killed;
    }

    /** Each client's exit codes: {@code exec-1={0=3, 10=1}}. */
    synchronized Map<String, Map<Integer, Integer>> exits() {
        Map<String, Map<Integer, Integer>> exits = new TreeMap<>();
        children.forEach(child -> exits.put(child.client, child.exits()));
        return exits;
    }

    static Path directory(String name) {
        try {
            return Files.createDirectories(Path.of("target", "faults", name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Thaws and kills whatever still runs. */
    @Override
    public void close() throws InterruptedException {
        for (Child child : children) {
            child.stopping = true;
            Process process = child.current;
            if (process != null && process.isAlive()) {
                child.thaw();
                process.destroyForcibly();
            }
        }
    }
}
