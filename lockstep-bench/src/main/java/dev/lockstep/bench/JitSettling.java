package dev.lockstep.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Waits, after a warm-up, until this JVM's JIT compilers have nearly stopped: on two cores a
 * C2 compiler busy with the code the warm-up made hot takes one of them from whatever is measured
 * next (measured: C2 took 30 s of CPU in a 100 s peers run, a third of the process's time). The
 * broker, the worker and the load generator all run in this JVM.
 */
public final class JitSettling {

    /** What the wait found: whether the JIT settled, and how long it took. */
    public record Outcome(boolean settled, Duration waited) {
    }

    /** Settled: the compilers' time grew by less than this share of a window's wall time. */
    private static final double QUIET = 0.05;

    private final LongSupplier compilingMillis;
    private final Duration window;

    /** @param compilingMillis the compilers' accumulated time, as {@link CompilationMXBean#getTotalCompilationTime} */
    JitSettling(LongSupplier compilingMillis, Duration window) {
        this.compilingMillis = compilingMillis;
        this.window = window;
    }

    /** For this JVM; one that cannot tell its compilation time counts as settled at once. */
    public static JitSettling ofThisJvm() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean measured = jit != null && jit.isCompilationTimeMonitoringSupported();
        return new JitSettling(measured ? jit::getTotalCompilationTime : () -> 0L, Duration.ofSeconds(1));
    }

    /** Waits window by window until one is quiet, or {@code atMost} has passed. */
    public Outcome await(Duration atMost) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + atMost.toNanos();
        long before = compilingMillis.getAsLong();
        while (true) {
            Thread.sleep(window.toMillis());
            long after = compilingMillis.getAsLong();
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            if (after - before < QUIET * window.toMillis()) {
                return new Outcome(true, waited);
            }
            if (System.nanoTime() >= deadline) {
                return new Outcome(false, waited);
            }
            before = after;
        }
    }

    /** One line for the benchmark's output. */
    public static String describe(Outcome outcome) {
        return outcome.settled()
                ? String.format("(JIT settled %.1f s after the warm-up)", outcome.waited().toMillis() / 1000.0)
                : String.format("(JIT still compiling %.0f s after the warm-up: figures include its CPU)",
                        outcome.waited().toMillis() / 1000.0);
    }
}
