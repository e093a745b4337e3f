package dev.lockstep.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LeaseLedgerTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(30);

    @Test
    void laterCommandsInABatchSeeEarlierOnes() {
        LeaseLedger ledger = new LeaseLedger(Map.of());
        assertThat(ledger.apply(new Command.Acquire("1", "r", "a", TTL), T0).verdict()).isInstanceOf(Verdict.Acquired.class);
        assertThat(ledger.apply(new Command.Acquire("2", "r", "b", TTL), T0).verdict()).isInstanceOf(Verdict.NotAcquired.class);
        assertThat(ledger.apply(new Command.Release("3", "r", "a", OptionalLong.empty()), T0).verdict())
                .isEqualTo(new Verdict.Released());
        Decision again = ledger.apply(new Command.Acquire("4", "r", "b", TTL), T0);
        assertThat(again.write()).map(Lease::fencingToken).contains(2L);
        assertThat(ledger.writes()).containsExactly(new Lease("r", "b", 2, T0, T0.plus(TTL)));
    }

    @Test
    void writesHoldOneFinalLeasePerChangedResource() {
        Lease stored = new Lease("s", "x", 41, T0.minusSeconds(100), T0.minusSeconds(1));
        LeaseLedger ledger = new LeaseLedger(Map.of("s", stored));
        ledger.apply(new Command.Status("1", "s"), T0);
        ledger.apply(new Command.Status("2", "t"), T0);
        assertThat(ledger.writes()).isEmpty();
        ledger.apply(new Command.Acquire("3", "s", "y", TTL), T0);
        ledger.apply(new Command.Acquire("4", "t", "y", TTL), T0);
        assertThat(ledger.writes()).extracting(Lease::resource, Lease::fencingToken)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s", 42L), org.assertj.core.groups.Tuple.tuple("t", 1L));
    }
}
