package dev.lockstep.faults;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Signals a process by its ID, as {@code kill -SIGNAL PID} does: SIGSTOP freezes it, SIGCONT thaws it. */
final class UnixSignals {

    private UnixSignals() {
    }

    /** @return whether the signal was delivered (false: no such process, it exited meanwhile) */
    static boolean send(long pid, String signal) throws InterruptedException {
        try {
            return new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor() == 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run kill", e);
        }
    }
}
