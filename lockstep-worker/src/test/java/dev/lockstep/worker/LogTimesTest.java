package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testclock.SetClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A partition's log time now, from the records seen there and the monotonic clock since. */
class LogTimesTest {

    private static final Instant T0 = Instant.parse("2026-12-07T00:00:00Z");

    private final SetClock clock = new SetClock(T0);
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final LogTimes logTimes = new LogTimes(clock, nanos::get);

    private void pass(Duration time) {
        nanos.addAndGet(time.toNanos());
        clock.advance(time);
    }

    @Test
    void aPartitionsLogTimeRunsOnFromItsLatestRecordByTheMonotonicClock() {
        assertThat(logTimes.now(0)).as("nothing seen anywhere: the worker's clock").isEqualTo(T0);
        logTimes.seen(0, T0.plusSeconds(30), OptionalLong.empty(), nanos.get());
        pass(Duration.ofSeconds(2));
        clock.set(T0.minusSeconds(3600));

        assertThat(logTimes.now(0)).as("the worker's clock stepped back: no matter").isEqualTo(T0.plusSeconds(32));
        assertThat(logTimes.now(1)).as("nothing seen there yet: the latest seen anywhere")
                .isEqualTo(T0.plusSeconds(32));
        assertThat(logTimes.latest(List.of(0, 1))).isEqualTo(T0.plusSeconds(32));
    }

    @Test
    void aConsumedRecordOlderThanTheEstimateDoesNotTurnItBack() {
        logTimes.seen(0, T0, OptionalLong.empty(), nanos.get());
        pass(Duration.ofSeconds(1));
        logTimes.seen(0, T0.minusSeconds(2), OptionalLong.empty(), nanos.get());
        assertThat(logTimes.now(0)).as("a record that waited in a backlog").isEqualTo(T0.plusSeconds(1));

        pass(Duration.ofSeconds(10));
        logTimes.seen(0, T0.minusSeconds(10), OptionalLong.empty(), nanos.get());
        assertThat(logTimes.now(0)).as("nor later").isEqualTo(T0.plusSeconds(11));
    }

    @Test
    void anAcknowledgedRecordOfTheWorkersOwnMovesAnOldEstimateBack() {
        logTimes.seen(0, T0.plusSeconds(30), OptionalLong.empty(), nanos.get());
        pass(Duration.ofSeconds(6));
        logTimes.seen(0, T0, OptionalLong.empty(), nanos.get());
        assertThat(logTimes.now(0)).as("a consumed record may have waited").isEqualTo(T0.plusSeconds(36));
        long sent = nanos.get();
        logTimes.seen(0, T0.plusSeconds(6), OptionalLong.of(sent), nanos.get());
        assertThat(logTimes.now(0)).as("the leader moved to a broker whose clock is right")
                .isEqualTo(T0.plusSeconds(6));
    }

    @Test
    void recordsStampedOutsideTheBoundAreCountedPerPartitionAndDirectionTheLatestKept() {
        logTimes.seen(0, T0.plus(LogTimes.BOUND), OptionalLong.empty(), nanos.get());
        logTimes.seen(1, T0.minus(LogTimes.BOUND), OptionalLong.of(nanos.get()), nanos.get());
        assertThat(logTimes.takeOutside()).as("within the bound").isEmpty();

        long sent = nanos.get();
        pass(Duration.ofMillis(500));
        logTimes.seen(1, T0.minusSeconds(2), OptionalLong.of(sent), nanos.get());
        logTimes.seen(0, T0.plusSeconds(20), OptionalLong.empty(), nanos.get());
        logTimes.seen(0, T0.plusSeconds(40), OptionalLong.empty(), nanos.get());

        assertThat(logTimes.takeOutside()).containsExactlyInAnyOrder(
                new LogTimes.Outside(1, T0.minusSeconds(2), Duration.ofSeconds(-2), 1),
                new LogTimes.Outside(0, T0.plusSeconds(40), Duration.ofMillis(39_500), 2));
        assertThat(logTimes.takeOutside()).isEmpty();
    }
}
