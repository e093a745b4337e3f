package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What exec's guard relies on ({@link JobGuard}): {@link System#nanoTime()} is the machine's
 * monotonic clock, not one of the JVM's own. A child JVM's reading lies between two of this JVM's
 * taken before it started and after it ended; a clock of another origin would be off by far more.
 */
class SharedMonotonicClockTest {

    /** The child: prints its reading. */
    public static void main(String[] args) {
        System.out.println(System.nanoTime());
    }

    @Test
    void aChildJvmReadsTheSameMonotonicClock() throws Exception {
        long before = System.nanoTime();
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), SharedMonotonicClockTest.class.getName())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String printed = new String(child.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip();
        assertThat(child.waitFor(60, TimeUnit.SECONDS)).isTrue();
        long after = System.nanoTime();
        assertThat(Long.parseLong(printed)).isBetween(before, after);
    }
}
