package dev.lockstep.bench.peers;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Many callers on <em>one</em> resource, each acquiring, holding it 1 ms and releasing, again and
 * again (closed loop): how fast the lock passes from one holder to the next, and in what order.
 *
 * <ul>
 *   <li><b>hand-overs per second</b>: grants over the run's duration;
 *   <li><b>hand-over latency</b>: from the moment the holder sends its release to the moment the next
 *       holder's acquire returns;
 *   <li><b>out of order</b>: grants made while a caller that had sent its acquire earlier (by the
 *       order in which callers sent them, in this process) still waited.
 * </ul>
 *
 * A peer that is not a lock (echo) grants everyone at once: only its rate is a figure.
 */
final class ContendedWorkload {

    private static final Duration HOLD = Duration.ofMillis(1);
    private static final Duration TTL = Duration.ofSeconds(30);

    /** What one peer did with {@code callers} callers on one resource. */
    record Figures(String peer, int callers, double handOversPerS, double handOverP50Ms, double handOverP99Ms,
            long grants, long outOfOrder, long errors) {
    }

    private final List<Integer> callerCounts;
    private final Duration duration;

    ContendedWorkload(List<Integer> callerCounts, Duration duration) {
        this.callerCounts = List.copyOf(callerCounts);
        this.duration = duration;
    }

    /** A short unrecorded pass at the largest count, then each count measured. */
    List<Figures> measure(String name, LockPeer peer, boolean exclusive) throws InterruptedException {
        String run = name + "-contended-" + System.nanoTime();
        int most = callerCounts.stream().mapToInt(Integer::intValue).max().orElse(1);
        once(name, peer, run + "-warm", most, Duration.ofSeconds(2), exclusive);
        List<Figures> figures = new ArrayList<>();
        for (int callers : callerCounts) {
            figures.add(once(name, peer, run + "-" + callers, callers, duration, exclusive));
        }
        return figures;
    }

    private Figures once(String name, LockPeer peer, String resource, int callers, Duration runFor, boolean exclusive)
            throws InterruptedException {
        Histogram handOver = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(5), 3);
        AtomicLong tickets = new AtomicLong();
        ConcurrentSkipListSet<Long> waiting = new ConcurrentSkipListSet<>();
        AtomicLong releaseSentAt = new AtomicLong();
        AtomicLong outOfOrder = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        long until = System.nanoTime() + runFor.toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(callers);
        List<Future<Long>> done = new ArrayList<>();
        for (int i = 0; i < callers; i++) {
            String owner = "contender-" + i;
            done.add(threads.submit(() -> {
                long grants = 0;
                while (System.nanoTime() < until) {
                    long ticket = tickets.incrementAndGet();
                    waiting.add(ticket);
                    try {
                        LockPeer.Held held = peer.acquire(resource, owner, TTL);
                        long granted = System.nanoTime();
                        waiting.remove(ticket);
                        if (granted < until) {
                            grants++;
                            if (exclusive) {
                                long released = releaseSentAt.get();
                                if (released != 0) {
                                    handOver.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(granted - released),
                                            handOver.getHighestTrackableValue()));
                                }
                                if (!waiting.isEmpty() && waiting.first() < ticket) {
                                    outOfOrder.incrementAndGet();
                                }
                            }
                        }
                        LockSupport.parkNanos(HOLD.toNanos());
                        releaseSentAt.set(System.nanoTime());
                        held.release();
                    } catch (RuntimeException e) {
                        waiting.remove(ticket);
                        errors.incrementAndGet();
                    }
                }
                return grants;
            }));
        }
        long grants = PeerWorkload.total(done, errors);
        threads.shutdown();
        return new Figures(name, callers, grants / (runFor.toNanos() / 1e9), ms(handOver, 50), ms(handOver, 99), grants,
                exclusive ? outOfOrder.get() : -1, errors.get());
    }

    private static double ms(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }
}
