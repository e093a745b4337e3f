package dev.lockstep.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.http.IdempotencyKeys.Use;
import dev.lockstep.testclock.SetClock;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class IdempotencyKeysTest {

    private static final byte[] ALICE = "{\"owner\":\"alice\"}".getBytes(StandardCharsets.UTF_8);
    private static final byte[] BOB = "{\"owner\":\"bob\"}".getBytes(StandardCharsets.UTF_8);

    @Test
    void aKeyStandsForOneCommandInFlightAndAfter() {
        IdempotencyKeys keys = new IdempotencyKeys(10, Duration.ofHours(24), Clock.systemUTC());
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.FIRST);
        assertThat(keys.begin("k", BOB)).isEqualTo(Use.OTHER_IN_FLIGHT);
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.RETRY);
        keys.end("k");
        keys.end("k");
        assertThat(keys.begin("k", BOB)).isEqualTo(Use.OTHER);
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.RETRY);
    }

    @Test
    void keysAreForgottenPastTheirAgeOrTheCapacityButNeverWhileInFlight() {
        SetClock clock = new SetClock(Instant.parse("2026-12-05T10:00:00Z"));
        IdempotencyKeys keys = new IdempotencyKeys(2, Duration.ofHours(1), clock);
        keys.begin("a", ALICE);
        keys.begin("b", ALICE);
        keys.end("b");
        keys.begin("c", ALICE);
        keys.end("c");
        // "a" waits for its reply: "b", the least recently used of the others, went.
        assertThat(keys.size()).isEqualTo(2);
        assertThat(keys.begin("a", BOB)).isEqualTo(Use.OTHER_IN_FLIGHT);
        assertThat(keys.begin("b", BOB)).isEqualTo(Use.FIRST);
        keys.end("b");
        keys.end("a");
        clock.advance(Duration.ofHours(1));
        assertThat(keys.begin("a", BOB)).isEqualTo(Use.FIRST);
    }
}
