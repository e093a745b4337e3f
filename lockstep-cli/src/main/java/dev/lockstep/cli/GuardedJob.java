package dev.lockstep.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A job run while a lease holds, for {@code exec} and {@code elect}: it gets SIGTERM the moment
 * the lease is lost (or lockstep is told to stop), then SIGKILL after the grace.
 */
final class GuardedJob {

    private GuardedJob() {
    }

    /**
     * Runs {@code command} until it exits.
     *
     * @param lost completes with why when the lease is lost
     * @return the job's exit code; {@link ExitCodes#LEASE_LOST} when the lease was lost while it
     *     ran; {@link ExitCodes#CANNOT_RUN} when it could not start
     */
    static int run(List<String> command, Map<String, String> environment, CompletableFuture<String> lost,
            Duration grace, PrintWriter err) throws InterruptedException {
        JobGroup job;
        try {
            job = JobGroup.start(command, environment);
        } catch (IOException e) {
            err.println("lockstep: cannot run " + command.get(0) + ": " + e.getMessage());
            err.flush();
            return ExitCodes.CANNOT_RUN;
        }
        if (!job.grouped()) {
            err.println("lockstep: setpriv and setsid (util-linux) not found: the command runs as a plain child process "
                    + "and would outlive a lockstep killed with SIGKILL (docs/client.md)");
            err.flush();
        }
        Signals.onTerminate(job::terminate);
        lost.thenRun(() -> terminate(job, grace));
        int exitCode = job.waitFor();
        if (lost.isDone()) {
            err.println("lockstep: " + lost.join() + "; the command was terminated");
            err.flush();
            return ExitCodes.LEASE_LOST;
        }
        return exitCode;
    }

    private static void terminate(JobGroup job, Duration grace) {
        job.terminate();
        CompletableFuture.delayedExecutor(grace.toMillis(), TimeUnit.MILLISECONDS).execute(() -> {
            if (job.isAlive()) {
                job.kill();
            }
        });
    }
}
