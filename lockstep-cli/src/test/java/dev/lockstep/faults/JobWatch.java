package dev.lockstep.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Jobs run under {@code lockstep exec}, as a test sees them: each logs its start (its PID, the wall
 * clock, its fencing token and its lease's owner) to a file; a thread of the test watches each
 * started job's process every few milliseconds and notes when it is gone (or a zombie), which a
 * job killed with SIGKILL cannot log itself. The wall clock is the broker's too (one machine), so
 * the times compare with the log's.
 */
final class JobWatch implements AutoCloseable {

    /** One job: from its own start line to its process's death as watched. */
    record Run(long pid, Instant started, long token, String owner, Optional<Instant> died) {

        /** The PID of the exec that ran it, from its lease's owner ({@code LABEL/exec-PID-RANDOM}). */
        long execPid() {
            String suffix = owner.substring(owner.lastIndexOf("/exec-") + "/exec-".length());
            return Long.parseLong(suffix.substring(0, suffix.indexOf('-')));
        }
    }

    private final Path log;
    private final Map<Long, Instant> deaths = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    private JobWatch(Path log) {
        this.log = log;
        this.thread = new Thread(this::watch, "job-watch");
        this.thread.setDaemon(true);
    }

    static JobWatch start(Path log) {
        JobWatch watch = new JobWatch(log);
        watch.thread.start();
        return watch;
    }

    /** A job's shell script: it logs its start to {@code log}, then runs {@code body}. */
    static String job(Path log, String body) {
        return "echo \"start $$ $(date +%s%N) $LOCKSTEP_FENCING_TOKEN $LOCKSTEP_OWNER\" >> " + log + "; " + body;
    }

    List<Run> runs() {
        List<Run> runs = new ArrayList<>();
        for (String line : lines()) {
            String[] words = line.split(" ");
            if (words.length == 5 && words[0].equals("start")) {
                long pid = Long.parseLong(words[1]);
                long nanos = Long.parseLong(words[2]);
                runs.add(new Run(pid, Instant.ofEpochSecond(0, nanos), Long.parseLong(words[3]), words[4],
                        Optional.ofNullable(deaths.get(pid))));
            }
        }
        return runs;
    }

    private List<String> lines() {
        try {
            return Files.readAllLines(log);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void watch() {
        while (running) {
            for (Run run : runs()) {
                if (run.died().isEmpty() && !alive(run.pid())) {
                    deaths.putIfAbsent(run.pid(), Instant.now());
                }
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Whether the process runs: listed, and not a zombie waiting for its parent. */
    static boolean alive(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException gone) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
    }
}
