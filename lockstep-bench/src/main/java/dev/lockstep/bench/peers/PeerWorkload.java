package dev.lockstep.bench.peers;

import dev.lockstep.bench.JitSettling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The workload every peer gets, the same for all: one caller acquiring and releasing a lock again
 * and again (acquire latency, the pair's latency), then, for each count of callers, that many
 * threads doing the same, each on a resource of its own (pairs per second, the pair's latency, and
 * the CPU the system spent per pair). Closed loop: each caller waits for its answer before asking
 * again, as a job runner does.
 */
final class PeerWorkload {

    private static final Duration TTL = Duration.ofSeconds(30);
    /** The warm-up's share of each count: enough to make connections and fill caches. */
    private static final Duration WARM_COUNT = Duration.ofSeconds(3);

    /**
     * What one peer did. The {@code concurrent*} figures are those of the first count of callers,
     * as one table column; {@code curve} has every count.
     */
    record Figures(String peer, String described, double acquireP50Ms, double acquireP99Ms, double pairP50Ms,
            double pairP99Ms, double concurrentPairsPerS, double concurrentPairP50Ms, double concurrentPairP99Ms,
            long errors, List<Concurrent> curve) {
    }

    /**
     * One count of callers: pairs per second, the pair's latency, and the CPU milliseconds the
     * system spent per pair, which are its CPU seconds per 1,000 pairs ({@link CpuMeter}; NaN where
     * it cannot be read).
     */
    record Concurrent(int callers, double pairsPerS, double pairP50Ms, double pairP99Ms,
            double cpuMsPerPair, long errors) {
    }

    private static final Duration SETTLING = Duration.ofSeconds(60);

    private final int sequentialPairs;
    private final List<Integer> callerCounts;
    private final Duration concurrentFor;
    private final Consumer<String> progress;

    /** @param progress where to say how the JIT stood after each warm-up */
    PeerWorkload(int sequentialPairs, List<Integer> callerCounts, Duration concurrentFor, Consumer<String> progress) {
        if (callerCounts.isEmpty()) {
            throw new IllegalArgumentException("at least one count of callers");
        }
        this.sequentialPairs = sequentialPairs;
        this.callerCounts = List.copyOf(callerCounts);
        this.concurrentFor = concurrentFor;
        this.progress = progress;
    }

    /**
     * The whole workload once unrecorded (each count for a few seconds), then once measured: every
     * peer is warm when measured (connections made, caches filled; for lockstep and ZooKeeper,
     * which run on a JVM, the JIT's compiling done: on two cores it takes a core for the first
     * minute). Lockstep's side runs in this JVM: the measured pass waits until its JIT has settled,
     * up to a minute.
     */
    Figures measure(String name, String described, LockPeer peer, CpuMeter cpu) throws InterruptedException {
        String run = name + "-" + System.nanoTime();
        sequential(peer, run + "-warm-one", histogram(), histogram(), new AtomicLong());
        for (int callers : callerCounts) {
            concurrent(peer, run + "-warm-" + callers, callers, min(WARM_COUNT, concurrentFor), cpu);
        }
        progress.accept(name + ": " + JitSettling.describe(JitSettling.ofThisJvm().await(SETTLING)));
        Histogram acquire = histogram();
        Histogram pair = histogram();
        AtomicLong errors = new AtomicLong();
        sequential(peer, run + "-one", acquire, pair, errors);
        List<Concurrent> curve = new ArrayList<>();
        for (int callers : callerCounts) {
            curve.add(concurrent(peer, run + "-many-" + callers, callers, concurrentFor, cpu));
        }
        Concurrent first = curve.get(0);
        return new Figures(name, described, ms(acquire, 50), ms(acquire, 99), ms(pair, 50), ms(pair, 99),
                first.pairsPerS(), first.pairP50Ms(), first.pairP99Ms(),
                errors.get() + curve.stream().mapToLong(Concurrent::errors).sum(), curve);
    }

    private void sequential(LockPeer peer, String resource, Histogram acquire, Histogram pair, AtomicLong errors) {
        pairs(peer, resource, sequentialPairs, acquire, pair, errors, new AtomicLong(), Long.MAX_VALUE);
    }

    private static Concurrent concurrent(LockPeer peer, String run, int callers, Duration runFor, CpuMeter cpu)
            throws InterruptedException {
        Histogram pair = histogram();
        AtomicLong errors = new AtomicLong();
        AtomicLong finished = new AtomicLong();
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        List<Future<Long>> done = new ArrayList<>();
        long cpuBefore = cpu.cpuNanos();
        long until = System.nanoTime() + runFor.toNanos();
        for (int i = 0; i < callers; i++) {
            String resource = run + "-" + i;
            done.add(threads.submit(() -> pairs(peer, resource, Integer.MAX_VALUE, histogram(), pair, errors, finished,
                    until)));
        }
        long completed = total(done, errors);
        long cpuSpent = cpu.cpuNanos() - cpuBefore;
        threads.shutdown();
        // The CPU until the last caller stopped, over every pair it paid for: those finished after the end too.
        double cpuMsPerPair = CpuMeter.available() && finished.get() > 0 ? cpuSpent / 1e6 / finished.get()
                : Double.NaN;
        return new Concurrent(callers, completed / (runFor.toNanos() / 1e9), ms(pair, 50), ms(pair, 99), cpuMsPerPair,
                errors.get());
    }

    /** What the callers counted, added up; a caller that failed counts as an error. */
    static long total(List<Future<Long>> callers, AtomicLong errors) throws InterruptedException {
        long sum = 0;
        for (Future<Long> each : callers) {
            try {
                sum += each.get();
            } catch (ExecutionException e) {
                errors.incrementAndGet();
            }
        }
        return sum;
    }

    /**
     * Up to {@code count} pairs on one resource, until {@code until} (nanoTime); returns how many
     * completed before it, and counts in {@code finished} every pair completed, the last one too.
     */
    private static long pairs(LockPeer peer, String resource, int count, Histogram acquire, Histogram pair,
            AtomicLong errors, AtomicLong finished, long until) {
        long completed = 0;
        for (int i = 0; i < count && System.nanoTime() < until; i++) {
            long start = System.nanoTime();
            try {
                LockPeer.Held held = peer.acquire(resource, "bench-owner", TTL);
                long acquired = System.nanoTime();
                held.release();
                long released = System.nanoTime();
                finished.incrementAndGet();
                if (released < until) {
                    record(acquire, acquired - start);
                    record(pair, released - start);
                    completed++;
                }
            } catch (RuntimeException e) {
                errors.incrementAndGet();
            }
        }
        return completed;
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private static Histogram histogram() {
        return new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(5), 3);
    }

    private static void record(Histogram histogram, long nanos) {
        histogram.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(nanos), histogram.getHighestTrackableValue()));
    }

    private static double ms(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }
}
