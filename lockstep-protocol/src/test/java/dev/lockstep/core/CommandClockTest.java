package dev.lockstep.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class CommandClockTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void usesTheBrokersLogAppendTime() {
        CommandClock clock = new CommandClock(Instant.EPOCH);
        assertThat(clock.next(T0)).isEqualTo(T0);
    }

    @Test
    void neverRunsBackwardsOnAPartition() {
        CommandClock clock = new CommandClock(T0);
        assertThat(clock.next(T0.minusSeconds(5))).isEqualTo(T0);
        assertThat(clock.next(T0.plusSeconds(1))).isEqualTo(T0.plusSeconds(1));
        assertThat(clock.next(T0)).isEqualTo(T0.plusSeconds(1));
        assertThat(clock.last()).isEqualTo(T0.plusSeconds(1));
    }

    @Test
    void truncatesToMillisecondsTheWireFormatsPrecision() {
        CommandClock clock = new CommandClock(Instant.EPOCH);
        assertThat(clock.next(T0.plusNanos(1_234_567))).isEqualTo(T0.plusMillis(1));
    }
}
