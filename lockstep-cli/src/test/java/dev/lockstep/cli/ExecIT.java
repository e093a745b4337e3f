package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LockClient;
import dev.lockstep.core.Verdict;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code lockstep exec}, as a real child process running real shell commands. */
@Tag("host-tools") // needs util-linux's setsid
@Tag("serial") // many exec JVMs and their guards, timed
class ExecIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockClient client;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        env.startWorker();
        client = env.startClient();
    }


    private Process exec(String resource, String owner, long ttl, long wait, String script) {
        return LockstepProcess.start(dir.resolve("exec.stderr").toFile(), execArgs(resource, owner, ttl, wait, script));
    }

    private String[] execArgs(String resource, String owner, long ttl, long wait, String script) {
        return new String[] {"exec", resource, "--owner", owner, "--ttl", Long.toString(ttl),
            "--wait", Long.toString(wait), "--grace", "2",
            "--bootstrap-servers", env.kafka().bootstrapServers(), "--command-topic", env.topics().commands(),
            "--reply-topic", env.topics().replies(), "--", "sh", "-c", script};
    }

    /** A job that logs {@code start} (shell words expanded), runs until {@code go} exists (at most a minute), logs {@code end}. */
    private static String untilGo(String start, Path log, Path go) {
        return "echo \"" + start + "\" >> " + log + "; i=0; while [ ! -f " + go
                + " ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; echo end >> " + log;
    }

    private static int exitCode(Process process) throws InterruptedException {
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exec finished").isTrue();
        return process.exitValue();
    }

    @Test
    void competingJobsRunOneAfterTheOtherAndReturnTheJobsExitCode() throws Exception {
        Path log = dir.resolve("runs.log");
        String job = "echo \"start $LOCKSTEP_FENCING_TOKEN $LOCKSTEP_RESOURCE\" >> " + log
                + "; sleep 1.5; echo \"end $LOCKSTEP_FENCING_TOKEN\" >> " + log + "; exit 7";
        List<Process> runners = new ArrayList<>();
        for (String owner : List.of("runner-a", "runner-b")) {
            runners.add(exec("nightly-report", owner, 5, 30, job));
        }
        for (Process runner : runners) {
            assertThat(exitCode(runner)).isEqualTo(7);
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("start ").endsWith(" nightly-report");
        String firstToken = lines.get(0).split(" ")[1];
        String secondToken = lines.get(2).split(" ")[1];
        assertThat(lines.get(1)).isEqualTo("end " + firstToken);
        assertThat(lines.get(2)).startsWith("start ");
        assertThat(lines.get(3)).isEqualTo("end " + secondToken);
        assertThat(Long.parseLong(secondToken)).isGreaterThan(Long.parseLong(firstToken));
        assertThat(client.blocking().status("nightly-report")).isEqualTo(new Verdict.NotFound());
    }

    /** {@code --limit 2}: two runs at once under one name, a third waits for a permit to free. */
    @Test
    void atMostTheLimitOfJobsRunAtOnce() throws Exception {
        Path log = dir.resolve("limited.log");
        Path go = dir.resolve("limited.go");
        String job = untilGo("start $LOCKSTEP_PERMIT", log, go);
        List<Process> runs = new ArrayList<>();
        for (String owner : List.of("a", "b", "c")) {
            String[] args = execArgs("pool-job", owner, 5, 60, job);
            String[] limited = new String[args.length + 2];
            limited[0] = args[0];
            limited[1] = args[1];
            limited[2] = "--limit";
            limited[3] = "2";
            System.arraycopy(args, 2, limited, 4, args.length - 2);
            runs.add(LockstepProcess.start(dir.resolve("exec-" + owner + ".stderr").toFile(), limited));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(log) && Files.readAllLines(log).size() >= 2);
        Thread.sleep(2_000);
        assertThat(Files.readAllLines(log)).as("two run, the third waits").containsExactlyInAnyOrder("start 0", "start 1");
        Files.createFile(go);
        for (Process run : runs) {
            assertThat(exitCode(run)).isZero();
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(6);
        int running = 0;
        int most = 0;
        for (String line : lines) {
            running += line.startsWith("start") ? 1 : -1;
            most = Math.max(most, running);
        }
        assertThat(most).isEqualTo(2);
    }

    /**
     * Two cron runs of one job on one host, labelled alike (the host name): the same owner
     * re-acquiring would extend one lease and both would run. Each exec owns its lease under a
     * suffix of its own, so the second waits for the first, or does not run at all.
     */
    @Test
    void twoExecsWithTheSameOwnerLabelNeverRunSideBySide() throws Exception {
        Path log = dir.resolve("same-owner.log");
        Path go = dir.resolve("same-owner.go");
        // Each job runs until the test says so (at most a minute): the first is surely still running
        // while the second exec tries, however slowly the machine starts a JVM.
        String job = untilGo("start $LOCKSTEP_FENCING_TOKEN $LOCKSTEP_OWNER", log, go);
        Process first = exec("cron-job", "host-1", 5, 0, job);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log));
        Process impatient = exec("cron-job", "host-1", 5, 0, job);
        assertThat(exitCode(impatient)).as("the same label, while the first runs").isEqualTo(ExitCodes.NOT_ACQUIRED);
        Process patient = exec("cron-job", "host-1", 5, 30, job);
        Files.createFile(go);
        assertThat(exitCode(first)).isZero();
        assertThat(exitCode(patient)).isZero();
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(4);
        assertThat(lines.get(0)).startsWith("start ");
        assertThat(lines.get(1)).isEqualTo("end");
        assertThat(lines.get(2)).startsWith("start ");
        assertThat(lines.get(3)).isEqualTo("end");
        String[] firstRun = lines.get(0).split(" ");
        String[] secondRun = lines.get(2).split(" ");
        assertThat(Long.parseLong(secondRun[1])).as("a new lease").isGreaterThan(Long.parseLong(firstRun[1]));
        assertThat(firstRun[2]).startsWith("host-1/exec-").isNotEqualTo(secondRun[2]);
        assertThat(secondRun[2]).startsWith("host-1/exec-");
    }

    @Test
    void aJobWhoseLeaseIsLostIsTerminated() throws Exception {
        Path log = dir.resolve("lost.log");
        Process exec = exec("fragile", "runner-a", 3, 0,
                "trap 'echo TERM >> " + log + "; exit 143' TERM; echo running >> " + log
                        + "; while true; do sleep 0.1; done");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log) && Files.readString(log).contains("running"));
        // Someone using the lease's owner name ends it; the next renewal is answered not_found.
        String owner = ((Verdict.Locked) client.blocking().status("fragile")).lease().owner();
        assertThat(owner).as("the label, then a suffix of this exec's").startsWith("runner-a/exec-");
        assertThat(client.blocking().release("fragile", owner, OptionalLong.empty()))
                .isEqualTo(new Verdict.Released());
        assertThat(exitCode(exec)).isEqualTo(ExitCodes.LEASE_LOST);
        assertThat(Files.readAllLines(log)).containsExactly("running", "TERM");
    }

    /** Granted after waiting more than twice its TTL: the lease began at the grant, and the job runs to its end. */
    @Test
    void aJobGrantedAfterAWaitLongerThanItsTtlRunsToItsEnd() throws Exception {
        Path log = dir.resolve("waited.log");
        Process first = exec("waited-for", "runner-a", 4, 0, "echo first >> " + log + "; sleep 9; echo first-end >> " + log);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log));
        Process second = exec("waited-for", "runner-b", 4, 60,
                "echo second >> " + log + "; sleep 2; echo second-end >> " + log);
        assertThat(exitCode(first)).isZero();
        assertThat(exitCode(second)).as("the waiter's job, not terminated as it starts").isZero();
        assertThat(Files.readAllLines(log)).containsExactly("first", "first-end", "second", "second-end");
    }

    @Test
    void aJobWhoseLockIsHeldIsNotRun() throws Exception {
        Path log = dir.resolve("never.log");
        try (HeldLease held = client.blocking().tryAcquire("busy", "someone", Duration.ofSeconds(30), Duration.ZERO)
                .orElseThrow()) {
            Process exec = exec("busy", "runner-a", 5, 1, "echo ran >> " + log);
            assertThat(exitCode(exec)).isEqualTo(ExitCodes.NOT_ACQUIRED);
            assertThat(held.isLost()).isFalse();
        }
        assertThat(log).doesNotExist();
    }

    @Test
    void aJobDiesWithItsExecEvenOnSigkillAndTheNextExecNeverOverlapsIt() throws Exception {
        assertThat(JobGroup.supported()).as("setsid (util-linux) on this Linux machine").isTrue();
        Path pids = dir.resolve("first.pids");
        // Under nohup, as exec is often run: SIGHUP ignored from the start, so the watchdog must not rely on it.
        Process first = LockstepProcess.startUnderNohup(dir.resolve("exec.stderr").toFile(), execArgs("never-twice",
                "runner-a", 4, 0, "echo $$ >> " + pids + "; sleep 300 & echo $! >> " + pids
                        + "; sh -c 'sleep 300' & echo $! >> " + pids + "; wait"));
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(pids) && Files.readAllLines(pids).size() == 3);
        List<Long> job = Files.readAllLines(pids).stream().map(Long::parseLong).toList();
        assertThat(job).allMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));

        first.destroyForcibly(); // SIGKILL: no shutdown hook, no finally block runs in exec
        assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
        Path second = dir.resolve("second.log");
        Process next = exec("never-twice", "runner-b", 4, 60, "for p in " + String.join(" ", job.stream()
                .map(String::valueOf).toList()) + "; do kill -0 $p 2>/dev/null && echo alive $p; done > " + second
                + "; echo started >> " + second);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(job)
                .as(() -> "every process of the job; still listed: " + survivors(job))
                .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)));
        assertThat(exitCode(next)).isZero();
        assertThat(Files.readAllLines(second)).as("what the second job found when it started").containsExactly("started");
    }

    /**
     * SIGTERM to an {@code exec} still waiting in the queue: it gives up, and its acquire leaves
     * the queue with it, instead of being granted after it is gone and blocking the lock for its TTL.
     */
    @Test
    void anExecStoppedWhileItWaitsLeavesTheQueue() throws Exception {
        HeldLease holder = client.blocking().tryAcquire("stopped-waiting", "holder", Duration.ofSeconds(30),
                Duration.ZERO).orElseThrow();
        Process waiting = exec("stopped-waiting", "runner-a", 30, 60, "echo ran");
        await().atMost(Duration.ofSeconds(30)).until(() -> client.blocking().status("stopped-waiting", "holder")
                instanceof Verdict.Locked locked && locked.waiters() == 1);

        waiting.destroy(); // SIGTERM
        assertThat(exitCode(waiting)).isEqualTo(ExitCodes.NOT_ACQUIRED);

        await().atMost(Duration.ofSeconds(10)).until(() -> client.blocking().status("stopped-waiting", "holder")
                instanceof Verdict.Locked locked && locked.waiters() == 0);
        holder.close();
        assertThat(client.blocking().status("stopped-waiting")).as("free, not granted to the exec that left")
                .isEqualTo(new Verdict.NotFound());
    }

    /**
     * What the kernel says of each job process still listed (its state, parent and command line),
     * so that a failure tells a zombie waiting for init from a process that escaped the kill.
     */
    private static String survivors(List<Long> job) {
        List<String> found = new ArrayList<>();
        for (long pid : job) {
            Path proc = Path.of("/proc", Long.toString(pid));
            try {
                String status = Files.readAllLines(proc.resolve("status")).stream()
                        .filter(line -> line.startsWith("State:") || line.startsWith("PPid:"))
                        .map(String::strip).reduce((a, b) -> a + ", " + b).orElse("");
                String cmdline = Files.readString(proc.resolve("cmdline")).replace('\0', ' ').strip();
                found.add(pid + " [" + status + "] " + cmdline);
            } catch (IOException e) {
                // gone between the check and this look
            }
        }
        return found.toString();
    }
}
