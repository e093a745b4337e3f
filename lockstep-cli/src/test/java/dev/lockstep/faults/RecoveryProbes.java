package dev.lockstep.faults;

import dev.lockstep.client.LockClient;
import dev.lockstep.testkit.Commands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How long callers wait around a fault, as docs/operations.md's recovery table gives it: every
 * 50 ms a status for one resource on each partition, each waiting as long as it must. The
 * longest wait is over every request sent from a second before the fault on; the p99 over those
 * sent up to ten seconds after it (the recovery goal), so that rows measured by tests of different
 * lengths compare.
 */
final class RecoveryProbes implements AutoCloseable {

    private static final Duration EVERY = Duration.ofMillis(50);
    /** After the fault, the requests counted: the recovery goal's span. */
    private static final Duration WINDOW = Duration.ofSeconds(10);

    /** One send and when its answer came. */
    private record Probe(int partition, long sentAt, CompletableFuture<Long> answeredAt) {
    }

    /** The longest wait from a second before the fault on, the p99 (and the count) up to ten seconds after it; the longest per probed partition. */
    record Figures(int requests, Duration longest, Duration p99, Map<Integer, Duration> longestByPartition) {

        /** The longest wait on the partitions that are not {@code excluded}. */
        Duration longestExcept(Set<Integer> excluded) {
            return longestByPartition.entrySet().stream().filter(e -> !excluded.contains(e.getKey()))
                    .map(Map.Entry::getValue).max(Comparator.naturalOrder()).orElse(Duration.ZERO);
        }

        /** A row of docs/operations.md's recovery table. */
        String row(String fault) {
            return String.format("| %s | %.1f s | %.1f s | %d |", fault, longest.toMillis() / 1000.0,
                    p99.toMillis() / 1000.0, requests);
        }

        /** Prints the row, with {@code more} after it, and adds it to the results the docs take their figures from. */
        Figures report(String fault, String more) {
            String row = row(fault) + more;
            System.out.println("recovery: " + row);
            FaultRun.appendResult("recovery " + row + System.lineSeparator());
            return this;
        }
    }

    private final List<Probe> probes = new ArrayList<>();
    private final ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor();
    private volatile long faultAt = Long.MAX_VALUE;

    private RecoveryProbes() {
    }

    /** Starts probing each of {@code partitions} partitions through {@code client}. */
    static RecoveryProbes start(LockClient client, String prefix, int partitions) {
        RecoveryProbes probes = new RecoveryProbes();
        List<String> resources = Commands.onEachPartition(prefix, partitions);
        probes.sender.scheduleAtFixedRate(() -> {
            for (int p = 0; p < resources.size(); p++) {
                long sentAt = System.nanoTime();
                Probe probe = new Probe(p, sentAt, client.status(resources.get(p)).thenApply(reply -> System.nanoTime()));
                synchronized (probes.probes) {
                    probes.probes.add(probe);
                }
            }
        }, 0, EVERY.toMillis(), TimeUnit.MILLISECONDS);
        return probes;
    }

    /** The fault happens now. */
    void faultInjected() {
        faultAt = System.nanoTime();
    }

    /** The partitions (by their index in the probed resources) whose requests sent after the fault are answered, some of them at least. */
    Set<Integer> answeredSinceFault() {
        Set<Integer> answered = new TreeSet<>();
        for (Probe probe : snapshot()) {
            if (probe.sentAt() > faultAt && probe.answeredAt().isDone() && !probe.answeredAt().isCompletedExceptionally()) {
                answered.add(probe.partition());
            }
        }
        return answered;
    }

    /** Stops sending, waits for every answer (up to {@code timeout} each) and gives the figures. */
    Figures finish(Duration timeout) throws InterruptedException, ExecutionException, TimeoutException {
        sender.shutdown();
        if (!sender.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the probes did not stop");
        }
        long from = faultAt - Duration.ofSeconds(1).toNanos();
        long to = faultAt + WINDOW.toNanos();
        List<Long> waits = new ArrayList<>();
        long longest = 0;
        Map<Integer, Duration> byPartition = new TreeMap<>();
        for (Probe probe : snapshot()) {
            long answered = probe.answeredAt().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (probe.sentAt() >= from) {
                // The longest over every request to the end: a stall that follows the fault counts too.
                longest = Math.max(longest, answered - probe.sentAt());
                byPartition.merge(probe.partition(), Duration.ofNanos(answered - probe.sentAt()),
                        (a, b) -> a.compareTo(b) >= 0 ? a : b);
                if (probe.sentAt() <= to) {
                    waits.add(answered - probe.sentAt());
                }
            }
        }
        if (waits.isEmpty()) {
            throw new IllegalStateException("no request was sent around the fault");
        }
        waits.sort(Comparator.naturalOrder());
        long p99 = waits.get((int) Math.ceil(waits.size() * 0.99) - 1);
        return new Figures(waits.size(), Duration.ofNanos(longest), Duration.ofNanos(p99), byPartition);
    }

    private List<Probe> snapshot() {
        synchronized (probes) {
            return List.copyOf(probes);
        }
    }

    @Override
    public void close() {
        sender.shutdownNow();
    }
}
