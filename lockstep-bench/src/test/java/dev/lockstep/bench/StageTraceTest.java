package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.lockstep.metrics.WorkerMetrics;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The trace reads the worker's own stage timers, counting only what came after the warm-up. */
class StageTraceTest {

    private final StageTrace trace = new StageTrace();
    private final WorkerMetrics metrics = new WorkerMetrics(trace.registry(), Clock.systemUTC());

    @Test
    void workerStagesCountFromTheResetWithinTheBucketsPrecision() {
        for (int i = 0; i < 1_000; i++) {
            metrics.batch(1, Duration.ofMillis(500)); // the warm-up: slow, and not counted
        }
        trace.reset();
        for (int i = 1; i <= 100; i++) {
            metrics.batch(1, Duration.ofMillis(i));
            metrics.decoded(Duration.ofMillis(i));
        }

        Map<StageTrace.Stage, StageTrace.Figures> figures = trace.figures();

        StageTrace.Figures transaction = figures.get(StageTrace.Stage.TRANSACTION);
        assertThat(transaction.count()).isEqualTo(100);
        assertThat(transaction.p50Ms()).isCloseTo(50, within(50 * 0.021));
        assertThat(transaction.p99Ms()).isCloseTo(99, within(99 * 0.021));
        assertThat(figures.get(StageTrace.Stage.DECODE).p99Ms()).isCloseTo(99, within(99 * 0.021));
        assertThat(figures.get(StageTrace.Stage.ACKNOWLEDGE).count()).as("nothing acknowledged").isZero();
    }

    @Test
    void theGeneratorsStagesAreItsOwnAndEmptiedByTheReset() {
        trace.record(StageTrace.Stage.TOTAL, Duration.ofSeconds(2));
        trace.reset();
        trace.record(StageTrace.Stage.TOTAL, Duration.ofMillis(3));

        StageTrace.Figures total = trace.figures().get(StageTrace.Stage.TOTAL);

        assertThat(total.count()).isEqualTo(1);
        assertThat(total.p99Ms()).isCloseTo(3, within(0.01));
    }

    @Test
    void withoutAResetEverythingCounts() {
        metrics.acknowledged(Duration.ofMillis(7));

        assertThat(trace.figures().get(StageTrace.Stage.ACKNOWLEDGE).count()).isEqualTo(1);
        assertThat(trace.figures().get(StageTrace.Stage.FETCH).count()).isZero();
    }
}
