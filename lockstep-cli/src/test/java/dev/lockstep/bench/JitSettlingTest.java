package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class JitSettlingTest {

    private static final Duration WINDOW = Duration.ofMillis(20);

    @Test
    void aQuietJitIsSettledAfterOneWindow() throws InterruptedException {
        JitSettling.Outcome outcome = new JitSettling(() -> 500L, WINDOW).await(Duration.ofSeconds(5));

        assertThat(outcome.settled()).isTrue();
        assertThat(outcome.waited()).isGreaterThanOrEqualTo(WINDOW).isLessThan(Duration.ofSeconds(5));
        assertThat(JitSettling.describe(outcome)).startsWith("(JIT settled ");
    }

    @Test
    void theWaitEndsWithTheFirstQuietWindow() throws InterruptedException {
        // Busy for three windows (a compiler's whole window each), then 2 ms: under 5 % of 100 ms.
        Iterator<Long> readings = List.of(0L, 100L, 200L, 300L, 302L, 900L).iterator();
        AtomicLong reads = new AtomicLong();
        JitSettling.Outcome outcome = new JitSettling(() -> {
            reads.incrementAndGet();
            return readings.next();
        }, Duration.ofMillis(100)).await(Duration.ofSeconds(5));

        assertThat(outcome.settled()).isTrue();
        assertThat(reads).hasValue(5);
    }

    @Test
    void aJitThatKeepsCompilingIsReportedAsSuchOnceTheLimitHasPassed() throws InterruptedException {
        AtomicLong compiled = new AtomicLong();
        JitSettling.Outcome outcome = new JitSettling(() -> compiled.addAndGet(15), WINDOW)
                .await(Duration.ofMillis(100));

        assertThat(outcome.settled()).isFalse();
        assertThat(outcome.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(100));
        assertThat(JitSettling.describe(outcome)).startsWith("(JIT still compiling ");
    }
}
