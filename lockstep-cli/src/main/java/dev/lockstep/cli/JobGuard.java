package dev.lockstep.cli;

import dev.lockstep.cli.GuardLink.Ended;
import dev.lockstep.cli.GuardLink.Lost;
import dev.lockstep.cli.GuardLink.NotStarted;
import dev.lockstep.cli.GuardLink.Order;
import dev.lockstep.cli.GuardLink.Refusal;
import dev.lockstep.cli.GuardLink.Run;
import dev.lockstep.cli.GuardLink.Started;
import dev.lockstep.cli.GuardLink.Stop;
import dev.lockstep.cli.GuardLink.Valid;
import dev.lockstep.cli.GuardPlan.JobSignal;
import dev.lockstep.client.MonotonicClock;
import dev.lockstep.client.MonotonicInstant;
import java.io.EOFException;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * The guard of the job {@code exec} and {@code elect} run: a dead man's switch outside the exec
 * JVM, which a long GC pause or a stopped VM would freeze with the job still running. It is a
 * small JVM of its own, started by exec from exec's class path, that runs the job as a process
 * group ({@link JobGroup}) and stops it on the schedule of {@link GuardPlan}: SIGTERM the grace
 * before the lease's local validity end, SIGKILL at that end, unless exec sent a later end
 * first. Exec sends ends, never "still alive": a frozen exec sends nothing, and its job dies on
 * time. When exec's connection closes (exec died), the job is killed at once.
 *
 * <p>The ends are instants of the monotonic clock, which exec and the guard read alike: on Linux
 * HotSpot's {@link System#nanoTime()} is {@code clock_gettime(CLOCK_MONOTONIC)} with no offset of
 * the process's own, one clock for every process of the machine (and of its time namespace,
 * which a child shares). The guard checks it: every order carries exec's reading as it was sent,
 * which must not be after the guard's as it reads the order, and the first must be at most
 * {@link #MOST_DELIVERY} before it. A guard that finds otherwise refuses to run the job.
 *
 * <p>Usage (by exec only): {@code JobGuard SOCKET COMMAND [ARGS...]}.
 */
public final class JobGuard {

    /** How long exec's first order may plausibly take to be read here; a clock of another origin is off by far more. */
    static final Duration MOST_DELIVERY = Duration.ofSeconds(10);

    private final MonotonicClock clock;
    private final JobGroup job;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private GuardPlan plan;

    private JobGuard(MonotonicClock clock, JobGroup job, GuardPlan plan) {
        this.clock = clock;
        this.job = job;
        this.plan = plan;
    }

    public static void main(String[] args) {
        // Exec passes on what it is told; the terminal's Ctrl-C or hang-up is for exec, not for the
        // guard. Handled, not ignored: the job would inherit an ignored signal and could not trap it
        // (a shell cannot trap a signal ignored when it started), unless it was ignored already.
        for (String name : List.of("INT", "TERM", "HUP")) {
            Signal signal = new Signal(name);
            if (Signal.handle(signal, received -> { }) == SignalHandler.SIG_IGN) {
                Signal.handle(signal, SignalHandler.SIG_IGN);
            }
        }
        System.exit(run(UnixDomainSocketAddress.of(args[0]), Arrays.asList(args).subList(1, args.length),
                MonotonicClock.system()));
    }

    private static int run(UnixDomainSocketAddress socket, List<String> command, MonotonicClock clock) {
        SocketChannel channel;
        try {
            channel = SocketChannel.open(socket);
        } catch (IOException execDoneWithoutAJob) {
            return ExitCodes.OK;
        }
        try (GuardLink link = GuardLink.over(channel)) {
            Order first;
            try {
                first = link.nextOrder();
            } catch (EOFException noLease) {
                return ExitCodes.OK;
            }
            if (!(first instanceof Run run)) {
                throw new IOException("the first order is not to run: " + first);
            }
            MonotonicInstant now = clock.now();
            if (now.isBefore(run.sentAt()) || run.sentAt().until(now).compareTo(MOST_DELIVERY) > 0) {
                link.send(new NotStarted(Refusal.OTHER_CLOCK, "exec's monotonic clock read " + run.sentAt().nanos()
                        + " ns as it sent the job, this process's " + now.nanos() + " ns as it got it"));
                return ExitCodes.ERROR;
            }
            GuardPlan plan = GuardPlan.holding(run.validUntil(), run.grace());
            if (!plan.canStartAt(now)) {
                link.send(new NotStarted(Refusal.TOO_LATE, now.until(run.validUntil()).toMillis()
                        + " ms of the lease's local validity left, grace " + run.grace().toMillis() + " ms"));
                return ExitCodes.OK;
            }
            JobGroup job;
            try {
                job = JobGroup.start(command, run.environment());
            } catch (IOException e) {
                link.send(new NotStarted(Refusal.CANNOT_RUN, "cannot run " + command.get(0) + ": " + e.getMessage()));
                return ExitCodes.OK;
            }
            JobGuard guard = new JobGuard(clock, job, plan);
            try {
                link.send(new Started(job.pid()));
            } catch (IOException execGone) {
                // The orders' reader finds the connection closed, and the job is killed.
            }
            Thread orders = new Thread(() -> guard.follow(link), "lockstep-guard-orders");
            orders.setDaemon(true);
            orders.start();
            int exitCode = guard.superviseUntilExit();
            try {
                link.send(new Ended(exitCode, guard.plan().cause()));
            } catch (IOException execGone) {
                // Nobody to tell.
            }
            return ExitCodes.OK;
        } catch (IOException e) {
            System.err.println("lockstep: the job's guard failed: " + e.getMessage());
            return ExitCodes.ERROR;
        }
    }

    /** Applies exec's orders as they come; when exec's connection closes, the job is killed. */
    private void follow(GuardLink link) {
        try {
            while (true) {
                Order order = link.nextOrder();
                MonotonicInstant now = clock.now();
                if (now.isBefore(order.sentAt())) {
                    System.err.println("lockstep: exec's monotonic clock is ahead of its guard's; stopping the job");
                    break;
                }
                lock.lock();
                try {
                    if (order instanceof Valid valid) {
                        plan = plan.renewed(valid.validUntil());
                    } else if (order instanceof Lost) {
                        apply(plan.lost(now));
                    } else if (order instanceof Stop) {
                        job.terminate();
                    }
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        } catch (IOException execGone) {
            // EOF, or a connection reset: exec is gone, by whatever means.
        }
        lock.lock();
        try {
            apply(plan.abandoned());
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Signals the job on the plan's schedule until it exits; returns its exit code. */
    private int superviseUntilExit() {
        job.onExit().thenRun(() -> {
            lock.lock();
            try {
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        });
        lock.lock();
        try {
            while (job.isAlive()) {
                apply(plan.at(clock.now()));
                long wait = plan.nextDue().map(due -> clock.now().until(due).toNanos()).orElse(Long.MAX_VALUE);
                if (wait > 0) {
                    changed.awaitNanos(wait);
                }
            }
            if (plan.cause().isPresent()) {
                // The job's first process ended while it was being stopped: what is left of its group
                // must not outlive the lease either.
                job.kill();
            }
            job.release();
            return job.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.kill();
            return ExitCodes.ERROR;
        } finally {
            lock.unlock();
        }
    }

    private void apply(GuardPlan.Step step) {
        plan = step.plan();
        for (JobSignal signal : step.signals()) {
            if (signal == JobSignal.TERM) {
                job.terminate();
            } else {
                job.kill();
            }
        }
    }

    private GuardPlan plan() {
        lock.lock();
        try {
            return plan;
        } finally {
            lock.unlock();
        }
    }
}
