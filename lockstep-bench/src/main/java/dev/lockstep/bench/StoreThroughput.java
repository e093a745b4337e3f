package dev.lockstep.bench;

import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.core.Outcome;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.Limits;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.worker.StoreStep;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * The database's share of a command, without a broker: the worker's batch step ({@link StoreStep})
 * driven directly, each caller on a partition of its own, acquiring a batch of resources and
 * releasing them in the next batch; against a baseline measured in the same run, a bare
 * transaction (the partition's progress row locked, then the commit), the floor under every batch.
 * Every reply is checked: an acquire must be acquired, a release released.
 */
public final class StoreThroughput {

    /** One round: per-batch latency and commands per second, and the replies that were not as expected. */
    public record Figures(String workload, int callers, int batchSize, long commands, double commandsPerSecond,
            double p50Millis, double p99Millis, long unexpected) {
    }

    /** The rounds measured, each with the bare transaction's figures at the same number of callers. */
    public record Result(List<Figures> rounds, List<Figures> bare) {
    }

    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private static final int RESOURCES = 10_000;
    private static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

    private final LockStore store;
    private final Duration warmUp;
    private final Duration measure;
    private final List<Caller> callers = new ArrayList<>();

    public StoreThroughput(LockStore store, Duration warmUp, Duration measure) {
        this.store = store;
        this.warmUp = warmUp;
        this.measure = measure;
    }

    /** Rounds of one caller, then of {@code many}, with batches of one command and of {@code batch}. */
    public Result measure(int many, int batch, PrintWriter out) throws InterruptedException {
        while (callers.size() < many) {
            callers.add(new Caller(store, "bench.store." + callers.size()));
        }
        // Every caller's partition in the tables, and the tables' statistics taken, as in a worker
        // that has been running a while; the sweeper's first statistics otherwise see one partition only.
        run("filling", many, 1);
        // The database's statistics collector reports changes within a second or so; a table with
        // fewer than the sweeper's threshold of changes gets none, as in a worker.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!store.refreshTableStatistics() && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        List<Figures> rounds = new ArrayList<>();
        List<Figures> bare = new ArrayList<>();
        for (int[] round : new int[][] {{1, 1}, {many, 1}, {many, batch}}) {
            bare.add(run("bare transaction", round[0], 0));
            rounds.add(run("acquire / release", round[0], round[1]));
            out.printf("%-18s callers %2d  batch %3d  %,9.0f commands/s  p50 %6.2f ms  p99 %6.2f ms  "
                    + "(bare transaction p50 %.2f ms: %.1f×)%n", last(rounds).workload(), round[0],
                    round[1], last(rounds).commandsPerSecond(), last(rounds).p50Millis(), last(rounds).p99Millis(),
                    last(bare).p50Millis(), last(rounds).p50Millis() / last(bare).p50Millis());
            out.flush();
        }
        return new Result(rounds, bare);
    }

    private static Figures last(List<Figures> figures) {
        return figures.get(figures.size() - 1);
    }

    /** @param batchSize commands per batch; 0 for the bare transaction */
    private Figures run(String workload, int count, int batchSize) throws InterruptedException {
        ExecutorService threads = Executors.newFixedThreadPool(count);
        try {
            List<Future<Histogram>> futures = new ArrayList<>();
            List<Caller> running = callers.subList(0, count);
            long startedAt = System.nanoTime();
            for (Caller caller : running) {
                futures.add(threads.submit(() -> caller.run(batchSize, startedAt + warmUp.toNanos(),
                        startedAt + warmUp.plus(measure).toNanos())));
            }
            Histogram batches = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
            for (Future<Histogram> future : futures) {
                batches.add(future.get());
            }
            long commands = batches.getTotalCount() * Math.max(batchSize, 1);
            long unexpected = running.stream().mapToLong(Caller::takeUnexpected).sum();
            return new Figures(workload, count, batchSize, commands, commands / (measure.toNanos() / 1e9),
                    batches.getValueAtPercentile(50) / 1000.0, batches.getValueAtPercentile(99) / 1000.0, unexpected);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a caller failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            threads.shutdownNow();
        }
    }

    /** One partition's commands, one batch after another: acquires, then the same resources released. */
    private static final class Caller {
        private final LockStore store;
        private final PartitionId partition;
        private final StoreStep step;
        private long offset;
        private int next;
        private boolean releasing;
        private long unexpected;

        Caller(LockStore store, String topic) {
            this.store = store;
            this.partition = new PartitionId(topic, 0);
            this.step = StoreStep.start(store, partition, SETTINGS);
        }

        Histogram run(int batchSize, long measureFrom, long until) {
            Histogram micros = new Histogram(TimeUnit.MINUTES.toMicros(1), 3);
            // A round ends after a release, so that the next, of another batch size, starts from free resources.
            for (long now = System.nanoTime(); now < until || releasing; now = System.nanoTime()) {
                if (batchSize == 0) {
                    store.inPartition(partition, tx -> tx.partition());
                } else {
                    applyPair(batchSize);
                }
                long took = System.nanoTime() - now;
                if (now >= measureFrom && now < until) {
                    micros.recordValue(TimeUnit.NANOSECONDS.toMicros(took));
                }
            }
            return micros;
        }

        /** Acquires a batch's resources; the next call releases them (each timed as its own batch). */
        private void applyPair(int batchSize) {
            List<Inbound> batch = new ArrayList<>(batchSize);
            for (int i = 0; i < batchSize; i++) {
                String resource = partition.topic() + "-r" + ((next + i) % RESOURCES);
                String json = releasing
                        ? "{\"request_id\":\"" + partition.topic() + "-" + offset + "\",\"type\":\"release\","
                                + "\"resource\":\"" + resource + "\",\"owner\":\"bench\"}"
                        : "{\"request_id\":\"" + partition.topic() + "-" + offset + "\",\"type\":\"acquire\","
                                + "\"resource\":\"" + resource + "\",\"owner\":\"bench\",\"ttl_seconds\":60}";
                batch.add(new Inbound(partition.topic(), 0, offset, resource.getBytes(StandardCharsets.UTF_8),
                        json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE,
                        Optional.of(START.plusMillis(offset))));
                offset++;
            }
            Outcome expected = releasing ? Outcome.RELEASED : Outcome.ACQUIRED;
            for (Outbound out : step.apply(batch)) {
                if (out instanceof Outbound.ReplyRecord reply
                        && !(reply.answer() instanceof Outbound.Answer.Decided decided
                                && decided.outcome() == expected)) {
                    unexpected++;
                }
            }
            if (releasing) {
                next = (next + batchSize) % RESOURCES;
            }
            releasing = !releasing;
        }

        long takeUnexpected() {
            long count = unexpected;
            unexpected = 0;
            return count;
        }
    }
}
