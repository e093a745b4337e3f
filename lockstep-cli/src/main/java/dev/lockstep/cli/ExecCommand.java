package dev.lockstep.cli;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.client.MonotonicClock;
import dev.lockstep.core.Share;
import dev.lockstep.protocol.ReplyEncoder;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "exec", mixinStandardHelpOptions = true,
        description = {"Run a command while holding a lock, like flock or 'consul lock'.",
            "Acquires RESOURCE (waiting up to --wait), runs COMMAND with LOCKSTEP_FENCING_TOKEN, LOCKSTEP_RESOURCE, "
                    + "LOCKSTEP_OWNER and LOCKSTEP_EXPIRES_AT set, renews the lease while it runs, releases it when it exits, and exits "
                    + "with its exit code. A guard process outside this JVM kills COMMAND by the lease's local validity "
                    + "end (90 %% of the TTL after the last renewal was sent), even if this JVM is frozen or killed: "
                    + "SIGTERM --grace before it, SIGKILL at it; a lease known lost gets SIGTERM at once. Then lockstep "
                    + "exits 15. Not acquired in time: COMMAND is not run, exit 10.",
            "On Linux COMMAND runs as a process group, signalled as a whole."})
final class ExecCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "RESOURCE", description = "The lock the command runs under.")
    String resource;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "COMMAND", description = "The command and its arguments, after --.")
    List<String> command;

    @Option(names = "--owner", paramLabel = "LABEL",
            description = {"Who runs the job, as shown in status, locks, audit and events. Default: this host's name.",
                "A label, not the lease's owner: that is the label plus a suffix unique to this process "
                        + "(LOCKSTEP_OWNER in the job's environment), so two execs never share a lease, "
                        + "whatever their labels."})
    Optional<String> label;

    @Option(names = "--ttl", paramLabel = "SECONDS", required = true,
            description = "Lease TTL; the lease is renewed every third of it.")
    long ttl;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "0",
            description = "How long to wait for the lock. Default: ${DEFAULT-VALUE}.")
    long waitSeconds;

    @Option(names = "--limit", paramLabel = "N",
            description = {"Run the command as one of at most N at once under this name (a semaphore of N, 1 to "
                    + Share.MAX_LIMIT + "); every run under the name must give the same N.",
                "Without it, the command runs alone."})
    Integer limit;

    @Option(names = "--grace", paramLabel = "SECONDS", defaultValue = "10",
            description = {"Time between SIGTERM and SIGKILL when the lease is lost or not renewed in time, at most "
                + "about 0.117 x the TTL: SIGKILL never comes after the lease's local validity end. Default: ${DEFAULT-VALUE}."})
    long graceSeconds;

    @Mixin
    ClientOptions client;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        Logging.quietKafka();
        PrintWriter err = spec.commandLine().getErr();
        ExecOwner owner;
        try {
            owner = ExecOwner.of(label);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        if (limit != null && (limit < 1 || limit > Share.MAX_LIMIT)) {
            throw new ParameterException(spec.commandLine(), "--limit is 1 to " + Share.MAX_LIMIT + ", not " + limit);
        }
        Share share = limit == null ? Share.EXCLUSIVE : Share.shared(limit);
        LockClientSettings settings = client.settings();
        // The guard starts while the lease is asked for.
        try (GuardedJob job = GuardedJob.prepare(command, MonotonicClock.system());
                LockClient locks = LockClient.start(settings)) {
            CompletableFuture<Optional<HeldLease>> acquiring = locks.tryAcquire(resource, owner.owner(),
                    Duration.ofSeconds(ttl), Duration.ofSeconds(waitSeconds), share);
            // Stopped while it waits, exec gives up: its acquire leaves the queue, or is released once granted.
            CountDownLatch gaveUp = new CountDownLatch(1);
            AtomicBoolean stopRequested = new AtomicBoolean();
            Signals.onTerminate(() -> {
                stopRequested.set(true);
                acquiring.cancel(false);
                gaveUp.countDown();
            });
            Optional<HeldLease> acquired;
            try {
                acquired = acquiring.join();
            } catch (CancellationException e) {
                // The cancellation is handed to the client by the signal's thread: not closed before it has it.
                gaveUp.await(5, TimeUnit.SECONDS);
                err.println("lockstep: stopped while waiting for " + resource + "; its acquire is cancelled");
                err.flush();
                return ExitCodes.NOT_ACQUIRED;
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException cause ? cause : e;
            }
            if (acquired.isEmpty()) {
                err.println("lockstep: " + resource + (limit == null ? " is held by another owner"
                        : " has its " + limit + " holders") + "; not acquired within " + waitSeconds + " s");
                err.flush();
                return ExitCodes.NOT_ACQUIRED;
            }
            try (HeldLease lease = acquired.get()) {
                return runHolding(job, lease, GuardTimes.of(Duration.ofSeconds(graceSeconds), Duration.ofSeconds(ttl),
                        settings), stopRequested::get, err);
            }
        } catch (IOException e) {
            err.println("lockstep: cannot start the command's guard: " + e.getMessage());
            err.flush();
            return ExitCodes.CANNOT_RUN;
        }
    }

    private int runHolding(GuardedJob job, HeldLease lease, GuardTimes times, BooleanSupplier stopRequested,
            PrintWriter err) throws InterruptedException {
        return job.run(Map.of(
                "LOCKSTEP_FENCING_TOKEN", Long.toString(lease.fencingToken()),
                "LOCKSTEP_RESOURCE", lease.resource(),
                "LOCKSTEP_OWNER", lease.owner(),
                "LOCKSTEP_EXPIRES_AT", ReplyEncoder.formatTime(lease.expiresAt()),
                "LOCKSTEP_PERMIT", Integer.toString(lease.lease().permit())),
                () -> lease.isLost() ? Optional.empty() : Optional.of(lease.validUntil()),
                lease.lost().thenApply(lost -> "lease on " + resource + " lost (" + lost.reason() + ")"),
                "lease on " + resource, times, stopRequested, err);
    }
}
