package dev.lockstep.bench.peers;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The recipes beyond a lock, through each system's own client: a counting semaphore of
 * {@link #PERMITS} under many callers, and leader failover.
 *
 * <ul>
 *   <li><b>semaphore</b>: every caller acquires one of the permits, holds it 1 ms and releases it,
 *       again and again (closed loop): grants per second, and the acquire's latency from the call
 *       to the grant; the most holders this process saw at once is checked against the permits;
 *   <li><b>failover</b>: candidate A leads, B campaigns behind it; A resigns (its lease released):
 *       the time from A's resignation to B's "you lead" callback, a new group each round.
 * </ul>
 *
 * A system whose client has no recipe for one (etcd's jetcd has no semaphore, Redisson no
 * election) gets no figure for it, and the table says why.
 */
final class RecipeWorkload {

    static final int PERMITS = 4;
    private static final Duration HOLD = Duration.ofMillis(1);
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final Duration BEHIND = Duration.ofMillis(300);
    private static final long WAIT_S = 60;

    /** A semaphore run: {@code mostHolders} is the most this process saw hold a permit at once. */
    record Semaphore(String peer, int callers, double grantsPerS, double acquireP50Ms, double acquireP99Ms,
            int mostHolders, long errors) {
    }

    /** Leader failovers: from the leader's resignation to the next candidate's callback. */
    record Failover(String peer, int rounds, double p50Ms, double p99Ms, double maxMs) {
    }

    /** One system's figures, and why a recipe has none. */
    record Figures(String peer, List<Semaphore> semaphore, List<Failover> failover, List<String> missing) {
    }

    private final List<Integer> callerCounts;
    private final Duration duration;
    private final int rounds;

    RecipeWorkload(List<Integer> callerCounts, Duration duration, int rounds) {
        this.callerCounts = List.copyOf(callerCounts);
        this.duration = duration;
        this.rounds = rounds;
    }

    Figures measure(String name, LockPeer peer) throws InterruptedException {
        List<String> missing = new ArrayList<>();
        List<Semaphore> semaphore = new ArrayList<>();
        try {
            String run = name + "-semaphore-" + System.nanoTime();
            semaphore(name, peer, run + "-warm", callerCounts.get(callerCounts.size() - 1), Duration.ofSeconds(2));
            for (int callers : callerCounts) {
                semaphore.add(semaphore(name, peer, run + "-" + callers, callers, duration));
            }
        } catch (LockPeer.Unavailable e) {
            missing.add("semaphore: " + e.getMessage());
        }
        List<Failover> failover = new ArrayList<>();
        try {
            failover.add(failover(name, peer));
        } catch (LockPeer.Unavailable e) {
            missing.add("failover: " + e.getMessage());
        }
        return new Figures(name, semaphore, failover, missing);
    }

    private Semaphore semaphore(String name, LockPeer peer, String resource, int callers, Duration runFor)
            throws InterruptedException {
        // Fails fast, before the threads start, for a client without the recipe.
        peer.acquirePermit(resource, PERMITS, "probe", TTL).release();
        Histogram acquire = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(5), 3);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicLong errors = new AtomicLong();
        long until = System.nanoTime() + runFor.toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            String owner = "permit-" + i;
            done.add(threads.submit(() -> {
                long grants = 0;
                while (System.nanoTime() < until) {
                    long asked = System.nanoTime();
                    try {
                        LockPeer.Held held = peer.acquirePermit(resource, PERMITS, owner, TTL);
                        long granted = System.nanoTime();
                        most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        if (granted < until) {
                            grants++;
                            acquire.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(granted - asked),
                                    acquire.getHighestTrackableValue()));
                        }
                        LockSupport.parkNanos(HOLD.toNanos());
                        holding.decrementAndGet();
                        held.release();
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                    }
                }
                return grants;
            }));
        }
        long grants = PeerWorkload.total(done, errors);
        threads.shutdown();
        return new Semaphore(name, callers, grants / (runFor.toNanos() / 1e9), ms(acquire, 50), ms(acquire, 99),
                most.get(), errors.get());
    }

    private Failover failover(String name, LockPeer peer) throws InterruptedException {
        Histogram took = new Histogram(TimeUnit.MINUTES.toMicros(5), 3);
        String run = name + "-election-" + System.nanoTime();
        for (int round = -1; round < rounds; round++) {
            String group = run + "-" + round;
            CountDownLatch aLeads = new CountDownLatch(1);
            CountDownLatch bLeads = new CountDownLatch(1);
            AtomicLong bElected = new AtomicLong();
            // Each candidate is closed once: a second close is an error for some recipes (Curator's latch).
            LockPeer.Candidate a = peer.campaign(group, "a", TTL, aLeads::countDown);
            boolean aClosed = false;
            try {
                await(aLeads, group + ": the first candidate never led");
                try (LockPeer.Candidate b = peer.campaign(group, "b", TTL, () -> {
                    bElected.set(System.nanoTime());
                    bLeads.countDown();
                })) {
                    Thread.sleep(BEHIND.toMillis());
                    long resigned = System.nanoTime();
                    aClosed = true;
                    a.close();
                    await(bLeads, group + ": the second candidate never led after the first resigned");
                    if (round >= 0) {
                        took.recordValue(TimeUnit.NANOSECONDS.toMicros(bElected.get() - resigned));
                    }
                }
            } finally {
                if (!aClosed) {
                    a.close();
                }
            }
        }
        return new Failover(name, rounds, ms(took, 50), ms(took, 99), took.getMaxValue() / 1000.0);
    }

    private static void await(CountDownLatch latch, String failure) throws InterruptedException {
        if (!latch.await(WAIT_S, TimeUnit.SECONDS)) {
            throw new IllegalStateException(failure + " within " + WAIT_S + " s");
        }
    }

    private static double ms(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }

    /** The two tables, each system's figures also as a ratio of lockstep's from the same run. */
    static void print(List<Figures> all, Duration duration, PrintWriter out) {
        if (all.isEmpty()) {
            return;
        }
        out.println();
        List<Semaphore> lockstep = all.stream().filter(f -> f.peer().equals("lockstep"))
                .flatMap(f -> f.semaphore().stream()).toList();
        out.printf("%-10s %8s %10s %11s %12s %12s %12s %7s%n", "system", "callers", "grants/s", "x lockstep",
                "acquire p50", "acquire p99", "most at once", "errors");
        for (Figures f : all) {
            for (Semaphore s : f.semaphore()) {
                double base = lockstep.stream().filter(l -> l.callers() == s.callers()).mapToDouble(Semaphore::grantsPerS)
                        .findFirst().orElse(Double.NaN);
                out.printf(Locale.ROOT, "%-10s %8d %10.0f %10.2fx %9.2f ms %9.2f ms %12s %7d%n", s.peer(), s.callers(),
                        s.grantsPerS(), s.grantsPerS() / base, s.acquireP50Ms(), s.acquireP99Ms(),
                        s.mostHolders() + " of " + PERMITS, s.errors());
            }
        }
        out.println("(a semaphore of " + PERMITS + " permits: every caller acquires one, holds it 1 ms, releases it, for "
                + duration.toSeconds() + " s; acquire: the call -> the grant)");
        out.println();
        double baseFailover = all.stream().filter(f -> f.peer().equals("lockstep")).flatMap(f -> f.failover().stream())
                .mapToDouble(Failover::p50Ms).findFirst().orElse(Double.NaN);
        out.printf("%-10s %7s %12s %11s %12s %12s%n", "system", "rounds", "failover p50", "x lockstep", "failover p99",
                "max");
        for (Figures f : all) {
            for (Failover v : f.failover()) {
                out.printf(Locale.ROOT, "%-10s %7d %9.2f ms %10.2fx %9.2f ms %9.2f ms%n", v.peer(), v.rounds(),
                        v.p50Ms(), v.p50Ms() / baseFailover, v.p99Ms(), v.maxMs());
            }
        }
        out.println("(leader failover: the leader resigns, its lease released -> the next candidate's \"you lead\" "
                + "callback; the candidate waited behind it)");
        all.forEach(f -> f.missing().forEach(why -> out.println("  " + f.peer() + ", " + why)));
        out.flush();
    }
}
