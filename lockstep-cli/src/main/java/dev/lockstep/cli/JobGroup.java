package dev.lockstep.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The job {@code lockstep exec} runs, as a process group, started and signalled by its guard
 * ({@link JobGuard}).
 *
 * <p>On Linux the job runs in a session of its own ({@code setsid}), so that its whole process
 * group can be signalled, its children with it. A small shell, the group's killer, signals the
 * group when told to (a shell's {@code kill} reaches a process group, which Java cannot); it reads
 * its orders from a pipe from the guard, and when that pipe closes without a word (the guard died,
 * by any means) it kills the group.
 *
 * <p>Limits (docs/client.md): a process that leaves the job's process group on purpose (its own
 * {@code setsid}, a daemon that double-forks into another group) escapes. Without {@code setsid}
 * (not Linux, or no util-linux) the job is a plain child process, and its children are not signalled.
 */
final class JobGroup {

    // Its first line: the job's process group. Then orders, one a line: a signal's name, or "done"
    // (the job ended: leave the group be). The pipe closed without "done": kill the group.
    private static final String KILLER = String.join("\n",
            "trap '' INT TERM HUP",
            "read -r group || exit 0",
            "while read -r order; do",
            "  [ \"$order\" = done ] && exit 0",
            "  kill -s \"$order\" -- \"-$group\" 2>/dev/null",
            "done",
            "kill -s KILL -- \"-$group\" 2>/dev/null");

    private final Process job;
    /** The orders to the group's killer; empty for a job that is no group of its own. */
    private final Optional<OutputStream> orders;

    private JobGroup(Process job, Optional<OutputStream> orders) {
        this.job = job;
        this.orders = orders;
    }

    /** Whether the job runs as a process group of its own (Linux with util-linux). */
    static boolean supported() {
        return Files.isExecutable(Path.of("/usr/bin/setsid")) && Files.isExecutable(Path.of("/bin/sh"));
    }

    /**
     * Starts the job, with this process's standard streams, and its killer. The killer runs first,
     * and learns the job's group the moment the job runs: a guard that dies after starting the
     * job leaves it to a killer that knows it.
     */
    static JobGroup start(List<String> command, Map<String, String> environment) throws IOException {
        if (!supported()) {
            return new JobGroup(job(command, environment), Optional.empty());
        }
        Process killer = new ProcessBuilder("/bin/sh", "-c", KILLER, "lockstep-guard")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        OutputStream orders = killer.getOutputStream();
        List<String> line = new ArrayList<>();
        // Started by a process that leads no group, setsid makes the job's process the leader of a
        // new session and group (its PID is the group's ID), without forking.
        line.add("/usr/bin/setsid");
        line.addAll(command);
        Process job;
        try {
            job = job(line, environment);
        } catch (IOException e) {
            orders.close(); // nothing to kill: the killer ends
            throw e;
        }
        JobGroup group = new JobGroup(job, Optional.of(orders));
        if (!group.order(Long.toString(job.pid()))) {
            job.destroyForcibly();
            throw new IOException("the job's killer is gone");
        }
        return group;
    }

    private static Process job(List<String> line, Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(line).inheritIO();
        builder.environment().putAll(environment);
        return builder.start();
    }

    long pid() {
        return job.pid();
    }

    CompletableFuture<Process> onExit() {
        return job.onExit();
    }

    boolean isAlive() {
        return job.isAlive();
    }

    int exitValue() {
        return job.exitValue();
    }

    /** SIGTERM to every process of the job. */
    void terminate() {
        if (!order("TERM")) {
            job.destroy();
        }
    }

    /** SIGKILL to every process of the job. */
    void kill() {
        if (!order("KILL")) {
            job.destroyForcibly();
        }
    }

    /** The job ended: its killer goes, leaving whatever is left of the group be. */
    void release() {
        order("done");
    }

    /** Whether the killer took the order. */
    private boolean order(String order) {
        if (orders.isEmpty()) {
            return false;
        }
        try {
            orders.get().write((order + "\n").getBytes(StandardCharsets.US_ASCII));
            orders.get().flush();
            return true;
        } catch (IOException killerGone) {
            return false;
        }
    }
}
