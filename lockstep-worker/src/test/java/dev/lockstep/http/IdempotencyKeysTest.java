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

    /**
     * A timed-out acquire ends and cancels its key in one step: no retry is let through between the
     * two, to be sent and answered with a lease the cancellation releases (once, the gateway ended
     * the request, then marked its key cancelled).
     */
    @Test
    void aTimedOutAcquireCancelsItsKeyAsItEnds() {
        IdempotencyKeys keys = new IdempotencyKeys(10, Duration.ofHours(24), Clock.systemUTC());
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.FIRST);
        assertThat(keys.timedOut("k")).as("cancel it").isTrue();
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.CANCELLED);
        assertThat(keys.begin("k", BOB)).isEqualTo(Use.OTHER);
    }

    /** A retry sent before its key was cancelled gets the reply the cancellation makes stale: it is not given it. */
    @Test
    void aRetryInFlightWhenItsKeyIsCancelledIsNotGivenItsReply() {
        IdempotencyKeys keys = new IdempotencyKeys(10, Duration.ofHours(24), Clock.systemUTC());
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.FIRST);
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.RETRY);
        assertThat(keys.timedOut("k")).isTrue();
        assertThat(keys.answered("k")).as("answered as cancelled, not with the lease").isFalse();
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.CANCELLED);
    }

    /** A request with the key was answered: its caller may hold the lease, so a retry that times out cancels nothing. */
    @Test
    void aKeyAnsweredOnceIsNeverCancelled() {
        IdempotencyKeys keys = new IdempotencyKeys(10, Duration.ofHours(24), Clock.systemUTC());
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.FIRST);
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.RETRY);
        assertThat(keys.answered("k")).isTrue();
        assertThat(keys.timedOut("k")).as("the retry's timeout cancels nothing").isFalse();
        assertThat(keys.begin("k", ALICE)).isEqualTo(Use.RETRY);
        assertThat(keys.answered("k")).isTrue();
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
