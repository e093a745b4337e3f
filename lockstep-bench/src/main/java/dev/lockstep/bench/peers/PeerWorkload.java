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
 * and again (acquire latency, the pair's latency), then {@code callers} threads doing the same,
 * each on a resource of its own (pairs per second, the pair's latency). Closed loop: each caller
 * waits for its answer before asking again, as a job runner does.
 */
final class PeerWorkload {

    private static final Duration TTL = Duration.ofSeconds(30);

    /** What one peer did. */
    record Figures(String peer, String described, double acquireP50Ms, double acquireP99Ms, double pairP50Ms,
            double pairP99Ms, double concurrentPairsPerS, double concurrentPairP50Ms, double concurrentPairP99Ms,
            long errors) {
    }

    private static final Duration SETTLING = Duration.ofSeconds(60);

    private final int sequentialPairs;
    private final int callers;
    private final Duration concurrentFor;
    private final Consumer<String> progress;

    /** @param progress where to say how the JIT stood after each warm-up */
    PeerWorkload(int sequentialPairs, int callers, Duration concurrentFor, Consumer<String> progress) {
        this.sequentialPairs = sequentialPairs;
        this.callers = callers;
        this.concurrentFor = concurrentFor;
        this.progress = progress;
    }

    /**
     * The whole workload once unrecorded, then once measured: every peer is warm when measured
     * (connections made, caches filled; for lockstep and ZooKeeper, which run on a JVM, the JIT's
     * compiling done: on two cores it takes a core for the first minute). Lockstep's side runs in
     * this JVM: the measured pass waits until its JIT has settled, up to a minute.
     */
    Figures measure(String name, String described, LockPeer peer) throws InterruptedException {
        String run = name + "-" + System.nanoTime();
        once(peer, run + "-warm");
        progress.accept(name + ": " + JitSettling.describe(JitSettling.ofThisJvm().await(SETTLING)));
        return once(peer, run).figures(name, described);
    }

    /** What one pass recorded. */
    private record Pass(Histogram acquire, Histogram pair, Histogram concurrentPair, long completed, long errors,
            Duration concurrentFor) {

        Figures figures(String name, String described) {
            return new Figures(name, described, ms(acquire, 50), ms(acquire, 99), ms(pair, 50), ms(pair, 99),
                    completed / (concurrentFor.toNanos() / 1e9), ms(concurrentPair, 50), ms(concurrentPair, 99), errors);
        }
    }

    private Pass once(LockPeer peer, String run) throws InterruptedException {
        Histogram acquire = histogram();
        Histogram pair = histogram();
        AtomicLong errors = new AtomicLong();
        pairs(peer, run + "-one", sequentialPairs, acquire, pair, errors, Long.MAX_VALUE);
        Histogram concurrentPair = histogram();
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        List<Future<Long>> done = new ArrayList<>();
        long until = System.nanoTime() + concurrentFor.toNanos();
        for (int i = 0; i < callers; i++) {
            String resource = run + "-many-" + i;
            done.add(threads.submit(() -> pairs(peer, resource, Integer.MAX_VALUE, histogram(), concurrentPair, errors,
                    until)));
        }
        long completed = total(done, errors);
        threads.shutdown();
        return new Pass(acquire, pair, concurrentPair, completed, errors.get(), concurrentFor);
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

    /** Up to {@code count} pairs on one resource, until {@code until} (nanoTime); returns how many completed. */
    private static long pairs(LockPeer peer, String resource, int count, Histogram acquire, Histogram pair,
            AtomicLong errors, long until) {
        long completed = 0;
        for (int i = 0; i < count && System.nanoTime() < until; i++) {
            long start = System.nanoTime();
            try {
                LockPeer.Held held = peer.acquire(resource, "bench-owner", TTL);
                long acquired = System.nanoTime();
                held.release();
                long released = System.nanoTime();
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
