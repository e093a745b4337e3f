package dev.lockstep.bench;

import dev.lockstep.worker.StageTimings;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Where a command's time goes, stage by stage, for {@code lockstep bench --trace}: the load
 * generator's send to the broker's append, the worker's stages ({@link StageTimings}), and the
 * reply's append to the generator's receipt. The broker, the worker and the generator share one
 * machine (and clock) in the benchmark; the two stages measured against a log-append time have the
 * broker's millisecond resolution.
 */
final class StageTrace implements StageTimings {

    /** The stages, in the order a command goes through them, with what each spans. */
    enum Stage {
        PRODUCE("send → command appended (producer, broker)", "per command"),
        FETCH("appended → in the worker's poll (broker, consumer)", "per command"),
        WAIT("polled → batch applying (worker: partition busy, free thread)", "per batch"),
        DECODE("decode and route the batch (worker)", "per batch"),
        TRANSACTION("transaction, decode to commit (worker, PostgreSQL)", "per batch"),
        ACKNOWLEDGE("replies handed to producer → acknowledged (worker, broker)", "per batch"),
        REPLY_FETCH("reply appended → received (broker, consumer)", "per command"),
        TOTAL("send → reply received", "per command");

        final String spans;
        final String unit;

        Stage(String spans, String unit) {
            this.spans = spans;
            this.unit = unit;
        }
    }

    private final Map<Stage, Histogram> micros = new LinkedHashMap<>();

    StageTrace() {
        for (Stage stage : Stage.values()) {
            micros.put(stage, new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(5), 3));
        }
    }

    void record(Stage stage, Duration took) {
        Histogram histogram = micros.get(stage);
        histogram.recordValue(Math.min(Math.max(0, took.toNanos() / 1_000), histogram.getHighestTrackableValue()));
    }

    @Override
    public void fetched(Duration sinceAppend) {
        record(Stage.FETCH, sinceAppend);
    }

    @Override
    public void waited(Duration sincePoll) {
        record(Stage.WAIT, sincePoll);
    }

    @Override
    public void decoded(Duration took) {
        record(Stage.DECODE, took);
    }

    @Override
    public void transaction(Duration took) {
        record(Stage.TRANSACTION, took);
    }

    @Override
    public void acknowledged(Duration sinceSent) {
        record(Stage.ACKNOWLEDGE, sinceSent);
    }

    /** p50 and p99 of one stage, in milliseconds; empty when nothing was recorded. */
    record Figures(Stage stage, long count, double p50Ms, double p99Ms) {
    }

    Map<Stage, Figures> figures() {
        Map<Stage, Figures> figures = new LinkedHashMap<>();
        micros.forEach((stage, h) -> figures.put(stage, new Figures(stage, h.getTotalCount(),
                h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0)));
        return figures;
    }

    void print(String title, PrintWriter out) {
        out.println(title);
        out.printf("  %-62s %-12s %10s %9s %9s%n", "stage", "", "count", "p50 ms", "p99 ms");
        for (Figures f : figures().values()) {
            out.printf("  %-62s %-12s %10d %9.2f %9.2f%n", f.stage().spans, f.stage().unit, f.count(), f.p50Ms(),
                    f.p99Ms());
        }
        out.flush();
    }

    void reset() {
        micros.values().forEach(Histogram::reset);
    }
}
