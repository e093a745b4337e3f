package dev.lockstep.bench;

import dev.lockstep.metrics.WorkerMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Where a command's time goes, stage by stage, for {@code lockstep bench --trace}: the load
 * generator's send to the broker's append, the worker's stages, and the reply's append to the
 * generator's receipt. The worker's stages are its own meters ({@link WorkerMetrics}), read from
 * the registry the benchmarked worker runs with: the trace adds nothing to the worker's path. It
 * gives those timers fine buckets (2 % apart) and counts from the bucket counts at {@link #reset()},
 * since a Micrometer timer cannot be emptied after the warm-up.
 *
 * <p>The broker, the worker and the generator share one machine (and clock) in the benchmark; the
 * stages measured against a log-append time have the broker's millisecond resolution.
 */
final class StageTrace {

    /** The stages, in the order a command goes through them, with what each spans. */
    enum Stage {
        PRODUCE("send → command appended (producer, broker)", "per command", Optional.empty()),
        FETCH("appended → in the worker's poll (broker, consumer)", "per command",
                Optional.of(WorkerMetrics.FETCH_DELAY)),
        WAIT("polled → batch applying (worker: partition busy, free thread)", "per batch",
                Optional.of(WorkerMetrics.QUEUE_DURATION)),
        DECODE("decode and route the batch (worker)", "per batch", Optional.of(WorkerMetrics.DECODE_DURATION)),
        TRANSACTION("transaction, decode to commit (worker, PostgreSQL)", "per batch",
                Optional.of(WorkerMetrics.TRANSACTION_DURATION)),
        ACKNOWLEDGE("replies handed to producer → acknowledged (worker, broker)", "per batch",
                Optional.of(WorkerMetrics.ACKNOWLEDGE_DURATION)),
        REPLY_FETCH("reply appended → received (broker, consumer)", "per command", Optional.empty()),
        TOTAL("send → reply received", "per command", Optional.empty());

        final String spans;
        final String unit;
        /** The worker's timer for the stage; empty for the generator's own stages. */
        final Optional<String> meter;

        Stage(String spans, String unit, Optional<String> meter) {
            this.spans = spans;
            this.unit = unit;
            this.meter = meter;
        }
    }

    /**
     * Bucket bounds for the worker's stage timers, in nanoseconds: every microsecond up to 50 µs,
     * then each 2 % above the last, to 5 minutes. Whole microseconds, since the registry names a
     * bucket by its bound in seconds to six places.
     */
    static final double[] BOUNDS = DoubleStream.iterate(1, b -> b <= TimeUnit.MINUTES.toMicros(5),
            b -> Math.max(b + 1, Math.round(b * 1.02))).map(micros -> micros * 1_000).toArray();

    private static final Set<String> WORKER_METERS = Arrays.stream(Stage.values()).flatMap(s -> s.meter.stream())
            .collect(Collectors.toUnmodifiableSet());

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final Map<Stage, Histogram> micros = new EnumMap<>(Stage.class);
    private final Map<Stage, HistogramSnapshot> countedFrom = new EnumMap<>(Stage.class);

    StageTrace() {
        for (Stage stage : Stage.values()) {
            if (stage.meter.isEmpty()) {
                micros.put(stage, new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(5), 3));
            }
        }
        // Before the worker registers its timers: the filter applies to timers registered after it.
        registry.config().meterFilter(new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!WORKER_METERS.contains(id.getName())) {
                    return config;
                }
                // Its bounds alone (no time window): the counts since reset() are the difference of two snapshots.
                return DistributionStatisticConfig.builder().percentilesHistogram(false).serviceLevelObjectives(BOUNDS)
                        .expiry(Duration.ofDays(365)).bufferLength(1).build().merge(config);
            }
        });
    }

    /** The registry the benchmarked worker's meters go to. */
    MeterRegistry registry() {
        return registry;
    }

    /** Records one of the load generator's stages. */
    void record(Stage stage, Duration took) {
        Histogram histogram = micros.get(stage);
        if (histogram == null) {
            throw new IllegalArgumentException(stage + " is the worker's to record, on its meter");
        }
        histogram.recordValue(Math.min(Math.max(0, took.toNanos() / 1_000), histogram.getHighestTrackableValue()));
    }

    /** From here on: what was recorded before (the warm-up) is not counted. */
    void reset() {
        micros.values().forEach(Histogram::reset);
        for (Stage stage : Stage.values()) {
            stage.meter.flatMap(this::timer).ifPresent(t -> countedFrom.put(stage, t.takeSnapshot()));
        }
    }

    /**
     * p50, p99, p99.99 and the largest of one stage, in milliseconds; zero when nothing was
     * recorded. The tail is what a timeout must stay above: the database's timeouts are chosen
     * from the transaction's (docs/operations.md#a-database-that-hangs).
     */
    record Figures(Stage stage, long count, double p50Ms, double p99Ms, double p9999Ms, double maxMs) {
    }

    Map<Stage, Figures> figures() {
        Map<Stage, Figures> figures = new LinkedHashMap<>();
        for (Stage stage : Stage.values()) {
            figures.put(stage, stage.meter.isPresent() ? fromMeter(stage) : fromHistogram(stage, micros.get(stage)));
        }
        return figures;
    }

    private static Figures fromHistogram(Stage stage, Histogram h) {
        return new Figures(stage, h.getTotalCount(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.99) / 1000.0, h.getMaxValue() / 1000.0);
    }

    private Figures fromMeter(Stage stage) {
        Optional<HistogramSnapshot> now = stage.meter.flatMap(this::timer).map(Timer::takeSnapshot);
        if (now.isEmpty()) {
            return new Figures(stage, 0, 0, 0, 0, 0);
        }
        return bucketed(stage, now.get(), Optional.ofNullable(countedFrom.get(stage)));
    }

    /**
     * Percentiles from cumulative bucket counts, counted from {@code before}: each the upper
     * bound of the bucket it falls in (at most 2 % above the value).
     */
    private static Figures bucketed(Stage stage, HistogramSnapshot now, Optional<HistogramSnapshot> before) {
        CountAtBucket[] buckets = now.histogramCounts();
        CountAtBucket[] earlier = before.map(HistogramSnapshot::histogramCounts).orElse(new CountAtBucket[0]);
        double[] counts = new double[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            counts[i] = buckets[i].count() - (i < earlier.length ? earlier[i].count() : 0);
        }
        // The last bound (5 minutes) is above any stage's time: its count is the total, read with
        // the buckets (the timer's count is read apart from them, and may differ while it records).
        long total = counts.length == 0 ? 0 : (long) counts[counts.length - 1];
        return new Figures(stage, total, percentile(buckets, counts, total, 0.50), percentile(buckets, counts, total, 0.99),
                percentile(buckets, counts, total, 0.9999), percentile(buckets, counts, total, 1.0));
    }

    private static double percentile(CountAtBucket[] buckets, double[] cumulative, double total, double quantile) {
        if (total == 0) {
            return 0;
        }
        for (int i = 0; i < cumulative.length; i++) {
            if (cumulative[i] >= quantile * total) {
                return buckets[i].bucket(TimeUnit.MILLISECONDS);
            }
        }
        return buckets[buckets.length - 1].bucket(TimeUnit.MILLISECONDS);
    }

    private Optional<Timer> timer(String name) {
        return Optional.ofNullable(registry.find(name).timer());
    }

    void print(String title, PrintWriter out) {
        out.println(title);
        out.printf("  %-62s %-12s %10s %9s %9s %9s %9s%n", "stage", "", "count", "p50 ms", "p99 ms", "p99.99 ms",
                "max ms");
        for (Figures f : figures().values()) {
            out.printf("  %-62s %-12s %10d %9.2f %9.2f %9.2f %9.2f%n", f.stage().spans, f.stage().unit, f.count(),
                    f.p50Ms(), f.p99Ms(), f.p9999Ms(), f.maxMs());
        }
        out.flush();
    }
}
