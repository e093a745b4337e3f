package dev.lockstep.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The job {@code lockstep exec} runs, as a process group that cannot outlive the exec process.
 *
 * <p>On Linux the job runs in a session of its own, started by a small watchdog shell that the
 * kernel signals when the exec process dies, by any means, SIGKILL included
 * ({@code prctl(PR_SET_PDEATHSIG)} through util-linux's {@code setpriv --pdeathsig}): the watchdog
 * then kills the job's whole process group. The watchdog also carries exec's own signals to the
 * group (TERM to stop, then KILL after the grace), so a job's children are stopped with it.
 *
 * <p>Limits (docs/client.md): a process that leaves the job's process group on purpose (its own
 * {@code setsid}, a daemon that double-forks into another group) escapes; without {@code setpriv}
 * and {@code setsid} (not Linux) the job is a plain child process, stopped by exec's signals but
 * left running if exec is killed with SIGKILL, and exec says so when it starts.
 */
final class JobGroup {

    // USR2: exec died (the death signal; not HUP, which nohup leaves ignored, and a shell cannot
    // trap a signal ignored when it started). TERM: stop the job. USR1: the grace is over.
    private static final String WATCHDOG = String.join("\n",
            "trap 'kill -KILL -$job 2>/dev/null; exit 137' USR2",
            "trap 'kill -TERM -$job 2>/dev/null' TERM",
            "trap 'kill -KILL -$job 2>/dev/null' USR1",
            "setsid \"$@\" &",
            "job=$!",
            "while :; do wait $job; code=$?; kill -0 $job 2>/dev/null || exit $code; done");

    private final Process process;
    private final boolean grouped;

    private JobGroup(Process process, boolean grouped) {
        this.process = process;
        this.grouped = grouped;
    }

    /** Whether the job runs as a process group bound to this process's life (Linux with util-linux). */
    static boolean supported() {
        return Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/setsid"));
    }

    static JobGroup start(List<String> command, Map<String, String> environment) throws IOException {
        boolean grouped = supported();
        List<String> line = new ArrayList<>();
        if (grouped) {
            line.addAll(List.of("/usr/bin/setpriv", "--pdeathsig", "USR2", "--", "/usr/bin/setsid", "/bin/sh", "-c",
                    WATCHDOG, "lockstep-exec"));
        }
        line.addAll(command);
        ProcessBuilder builder = new ProcessBuilder(line).inheritIO();
        builder.environment().putAll(environment);
        return new JobGroup(builder.start(), grouped);
    }

    boolean grouped() {
        return grouped;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    int waitFor() throws InterruptedException {
        return process.waitFor();
    }

    /** SIGTERM to every process of the job. */
    void terminate() {
        process.destroy();
    }

    /** SIGKILL to every process of the job. */
    void kill() {
        if (!grouped) {
            process.destroyForcibly();
            return;
        }
        try {
            new ProcessBuilder("kill", "-USR1", Long.toString(process.pid())).inheritIO().start().waitFor();
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
