package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The queue gauges ask the database once per second however many partitions a scrape reads. */
class QueueLengthsTest {

    private final StubStore store = new StubStore();
    private final AtomicLong nanos = new AtomicLong(5);
    private final QueueLengths lengths = new QueueLengths(store, "lock.commands", Duration.ofSeconds(1), nanos::get);

    @Test
    void onePartitionsGaugeAfterAnotherReadsOneAnswer() {
        store.waiting = Map.of(2, 7L);
        assertThat(lengths.of(2)).isEqualTo(7.0);
        assertThat(lengths.of(0)).as("none waits there").isZero();
        assertThat(store.asked).isEqualTo(1);

        store.waiting = Map.of(2, 3L);
        nanos.addAndGet(Duration.ofMillis(999).toNanos());
        assertThat(lengths.of(2)).as("still the last answer").isEqualTo(7.0);
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(lengths.of(2)).isEqualTo(3.0);
        assertThat(store.asked).isEqualTo(2);
    }

    @Test
    void aDatabaseThatDoesNotAnswerIsNotANumber() {
        store.down = true;
        assertThat(lengths.of(1)).isNaN();
        store.down = false;
        store.waiting = Map.of(1, 1L);
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(lengths.of(1)).isEqualTo(1.0);
    }
}
