package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lockstep exec}'s job when what supervises it cannot act: the worker that answers its
 * renewals frozen, or the exec JVM itself frozen (SIGSTOP, as a long GC pause or a stopped VM
 * would). The job must be dead by its lease's local validity end, before the log can end the
 * lease, so that no other exec's job ever runs beside it.
 */
@Tag("host-tools") // needs util-linux's setsid
@Tag("serial") // times a guard's kill against the lease to a fraction of a second
class ExecGuardIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int LEASE_LOST = 15;

    private static ChildWorker worker;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        worker = ChildWorker.startApplying(env, "exec-guard");
    }

    @AfterAll
    static void stop() throws Exception {
        worker.close();
    }

    private Process exec(String resource, String label, long ttl, long wait, String script) {
        return LockstepProcess.start(Path.of("target", "faults", label + ".stderr").toFile(), "exec", resource, "--owner", label,
                "--ttl", Long.toString(ttl), "--wait", Long.toString(wait), "--grace", "10",
                "--bootstrap-servers", env.kafka().bootstrapServers(), "--command-topic", env.topics().commands(),
                "--reply-topic", env.topics().replies(), "--", "sh", "-c", script);
    }

    /** The end the log gave the lease of {@code token}: the latest expiry in a grant or renewal of it read so far. */
    private static Instant leaseEnd(String resource, long token) {
        return await().atMost(Duration.ofSeconds(10)).until(() -> replied(resource, token), Optional::isPresent)
                .orElseThrow();
    }

    private static Optional<Instant> replied(String resource, long token) {
        return env.replies().all().stream()
                .flatMap(record -> ReplyDecoder.decode(record.value()).stream())
                .map(message -> message.reply() instanceof Verdict.Acquired acquired ? Optional.of(acquired.lease())
                        : message.reply() instanceof Verdict.Renewed renewed ? Optional.of(renewed.lease())
                        : Optional.<dev.lockstep.core.Lease>empty())
                .flatMap(Optional::stream)
                .filter(lease -> lease.resource().equals(resource) && lease.fencingToken() == token)
                .map(dev.lockstep.core.Lease::expiresAt)
                .max(Instant::compareTo);
    }

    private static void signal(String signal, long pid) throws Exception {
        int exit = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).inheritIO().start().waitFor();
        assertThat(exit).as("kill -%s %s", signal, pid).isZero();
    }

    /**
     * A job that ignores SIGTERM, under a 3 s TTL and the default 10 s grace; its renewals go
     * unanswered from the moment the worker is frozen. Its SIGKILL comes by the local validity end,
     * at most 90 % of the TTL after the last renewal answered (so after the freeze): not 10 s later.
     */
    @Test
    void aJobIgnoringSigtermIsKilledByTheLocalValidityEndWhileItsRenewalsGoUnanswered() throws Exception {
        Path log = dir.resolve("stubborn.log");
        try (JobWatch jobs = JobWatch.start(log)) {
            Process exec = exec("stubborn", "stubborn", 3, 0,
                    JobWatch.job(log, "trap '' TERM; while :; do sleep 0.1; done"));
            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.runs().size() == 1);
            JobWatch.Run run = jobs.runs().get(0);
            Instant granted = leaseEnd("stubborn", run.token());
            await().atMost(Duration.ofSeconds(10)).until(() -> leaseEnd("stubborn", run.token()).isAfter(granted));
            worker.freeze();
            Instant frozenAt = Instant.now();
            try {
                Thread.sleep(500); // replies published before the freeze are read by now
                Instant logEnd = leaseEnd("stubborn", run.token());
                await().atMost(Duration.ofSeconds(20)).until(() -> jobs.runs().get(0).died().isPresent());
                Instant died = jobs.runs().get(0).died().orElseThrow();
                assertThat(Duration.between(frozenAt, died)).as("from the freeze to the job's death")
                        .isLessThanOrEqualTo(Duration.ofMillis(2_700 + 150));
                assertThat(died).as("the job's death, against the lease's end in the log").isBefore(logEnd);
            } finally {
                worker.thaw();
            }
            assertThat(exec.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(exec.exitValue()).isEqualTo(LEASE_LOST);
        }
    }

    /** The guard is the job's dead man's switch; if it dies (SIGKILL), its job dies with it. */
    @Test
    void aJobWhoseGuardIsKilledDiesWithIt() throws Exception {
        Path log = dir.resolve("unguarded.log");
        try (JobWatch jobs = JobWatch.start(log)) {
            Process exec = exec("unguarded", "unguarded", 10, 0, JobWatch.job(log, "sleep 300 & wait"));
            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.runs().size() == 1);
            // Exec's one child: the guard's JVM (its job and the job's killer are the guard's children).
            ProcessHandle guard = exec.children().filter(child -> child.info().command().orElse("").endsWith("/java"))
                    .findFirst().orElseThrow();
            guard.destroyForcibly();
            Instant killed = Instant.now();
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.runs().get(0).died().isPresent());
            assertThat(Duration.between(killed, jobs.runs().get(0).died().orElseThrow()))
                    .as("from the guard's SIGKILL to its job's death").isLessThan(Duration.ofSeconds(1));
            assertThat(exec.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(exec.exitValue()).as("the guard's failure").isEqualTo(1);
        }
    }

    /**
     * Three exec loops on one resource (TTL 3 s, 8 s jobs). The exec whose job runs is frozen for
     * 7 s: its lease ends in the log meanwhile, and the next exec runs its job. The frozen exec's
     * job must be dead before that lease's end, killed by the guard outside the frozen JVM; no
     * two jobs ever run at once.
     */
    @Test
    void aFrozenExecsJobIsDeadBeforeItsLeaseEndsAndNoTwoJobsOverlap() throws Exception {
        Path log = dir.resolve("loops.log");
        String job = JobWatch.job(log, "sleep 8");
        List<Process> execs = new ArrayList<>();
        Map<Long, Integer> exits = new ConcurrentHashMap<>();
        ExecutorService loops = Executors.newFixedThreadPool(3);
        try (JobWatch jobs = JobWatch.start(log)) {
            for (int i = 0; i < 3; i++) {
                String label = "loop-" + i;
                loops.submit(() -> {
                    while (true) {
                        Process exec;
                        synchronized (execs) {
                            if (jobs.runs().size() >= 3) {
                                return null;
                            }
                            exec = exec("paused-exec", label, 3, 60, job);
                            execs.add(exec);
                        }
                        exits.put(exec.pid(), exec.waitFor());
                    }
                });
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> !jobs.runs().isEmpty());
            JobWatch.Run frozen = jobs.runs().get(0);
            Thread.sleep(1_500);
            signal("STOP", frozen.execPid());
            Thread.sleep(7_000);
            signal("CONT", frozen.execPid());

            await().atMost(Duration.ofSeconds(60)).until(() -> jobs.runs().size() >= 3);
            synchronized (execs) {
                // The execs still waiting in the queue would each run 8 s more; the running ones finish.
                Set<Long> running = jobs.runs().stream().map(JobWatch.Run::execPid).collect(Collectors.toSet());
                execs.stream().filter(exec -> !running.contains(exec.pid())).forEach(Process::destroy);
            }
            loops.shutdown();
            assertThat(loops.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> jobs.runs().stream().allMatch(r -> r.died().isPresent()));

            List<JobWatch.Run> runs = jobs.runs();
            JobWatch.Run frozenRun = runs.get(0);
            for (int i = 1; i < runs.size(); i++) {
                assertThat(runs.get(i).started()).as("job %s started after job %s died: %s", i, i - 1, runs)
                        .isAfter(runs.get(i - 1).died().orElseThrow());
            }
            assertThat(exits.get(frozen.execPid())).as("the frozen exec").isEqualTo(LEASE_LOST);
            assertThat(frozenRun.died().orElseThrow()).as("the frozen exec's job's death, against its lease's end")
                    .isBefore(leaseEnd("paused-exec", frozenRun.token()));
        } finally {
            loops.shutdownNow();
            synchronized (execs) {
                execs.forEach(Process::destroyForcibly);
            }
        }
    }
}
