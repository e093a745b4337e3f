package dev.lockstep.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class ArbiterTest {

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String R = "payment:42";

    private static Lease lease(String owner, long token, Instant acquired, Instant expires) {
        return new Lease(R, owner, token, acquired, expires);
    }

    /** The token the command's position in the log gives a new lease. */
    private static final long NEXT = 8;

    private static final Lease HELD_BY_A = lease("a", 7, T0, T0.plus(TTL));

    private static Command.Acquire acquire(String owner) {
        return new Command.Acquire("r1", R, owner, TTL);
    }

    private static Command.Renew renew(String owner, OptionalLong token) {
        return new Command.Renew("r1", R, owner, Duration.ofSeconds(60), token);
    }

    private static Command.Release release(String owner, OptionalLong token) {
        return new Command.Release("r1", R, owner, token);
    }

    @Nested
    class Acquire {
        @Test
        void grantsANewResourceTheGivenToken() {
            Decision d = Arbiter.decide(acquire("a"), Optional.empty(), T0, NEXT);
            Lease expected = lease("a", NEXT, T0, T0.plus(TTL));
            assertThat(d.verdict()).isEqualTo(new Verdict.Acquired(expected));
            assertThat(d.write()).contains(expected);
        }

        @Test
        void refusesAnotherOwnerWhileLiveAndSaysOnlyWhenItEnds() { // ATK-01
            Decision d = Arbiter.decide(acquire("b"), Optional.of(HELD_BY_A), T0.plusSeconds(10), NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(20)));
            assertThat(d.write()).isEmpty();
        }

        @Test
        void anyoneTakesAnExpiredLeaseWithAGreaterToken() { // ATK-03
            Instant later = T0.plus(TTL);
            Decision d = Arbiter.decide(acquire("b"), Optional.of(HELD_BY_A), later, NEXT);
            Lease expected = lease("b", NEXT, later, later.plus(TTL));
            assertThat(d.verdict()).isEqualTo(new Verdict.Acquired(expected));
            assertThat(d.write()).contains(expected);
        }

        @Test
        void theSameOwnerReacquiringExtendsAndKeepsItsToken() { // ATK-09
            Instant now = T0.plusSeconds(10);
            Decision d = Arbiter.decide(acquire("a"), Optional.of(HELD_BY_A), now, NEXT);
            Lease expected = lease("a", 7, T0, now.plus(TTL));
            assertThat(d.verdict()).isEqualTo(new Verdict.Acquired(expected));
            assertThat(d.write()).contains(expected);
        }

        @Test
        void theSameOwnerAfterExpiryGetsANewLeaseAndToken() {
            Instant later = T0.plus(TTL).plusSeconds(1);
            Decision d = Arbiter.decide(acquire("a"), Optional.of(HELD_BY_A), later, NEXT);
            assertThat(d.write()).contains(lease("a", NEXT, later, later.plus(TTL)));
        }

        @Test
        void afterAReleaseTheTokenSequenceContinues() {
            Lease released = lease("a", 7, T0, T0.plusSeconds(5));
            Decision d = Arbiter.decide(acquire("a"), Optional.of(released), T0.plusSeconds(5), NEXT);
            assertThat(d.write()).map(Lease::fencingToken).contains(NEXT);
        }

        @Test
        void aNewLeaseGetsTheTokenItsPositionGivesWhateverTheLastTokenWas() {
            Lease old = lease("a", 50, T0.minusSeconds(60), T0.minusSeconds(30));
            assertThat(Arbiter.decide(acquire("b"), Optional.of(old), T0, 51).write())
                    .map(Lease::fencingToken).contains(51L);
            assertThat(Arbiter.decide(acquire("b"), Optional.empty(), T0, 1).write())
                    .map(Lease::fencingToken).contains(1L);
        }

        @Test
        void ownersAreComparedExactly() {
            Decision d = Arbiter.decide(acquire("A"), Optional.of(HELD_BY_A), T0, NEXT);
            assertThat(d.verdict()).isInstanceOf(Verdict.NotAcquired.class);
        }
    }

    @Nested
    class Renew {
        @Test
        void theOwnerExtendsToNowPlusTtl() {
            Instant now = T0.plusSeconds(20);
            Decision d = Arbiter.decide(renew("a", OptionalLong.empty()), Optional.of(HELD_BY_A), now, NEXT);
            Lease expected = lease("a", 7, T0, now.plusSeconds(60));
            assertThat(d.verdict()).isEqualTo(new Verdict.Renewed(expected));
            assertThat(d.write()).contains(expected);
        }

        @Test
        void anotherOwnerIsForbidden() { // ATK-04
            Decision d = Arbiter.decide(renew("b", OptionalLong.empty()), Optional.of(HELD_BY_A), T0, NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.Forbidden());
            assertThat(d.write()).isEmpty();
        }

        @Test
        void aMatchingTokenIsAccepted() {
            Decision d = Arbiter.decide(renew("a", OptionalLong.of(7)), Optional.of(HELD_BY_A), T0, NEXT);
            assertThat(d.verdict()).isInstanceOf(Verdict.Renewed.class);
        }

        @Test
        void aStaleTokenIsForbiddenEvenForTheOwner() {
            Decision d = Arbiter.decide(renew("a", OptionalLong.of(6)), Optional.of(HELD_BY_A), T0, NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.Forbidden());
        }

        @Test
        void anExpiredLeaseIsNobodysSoNotFound() {
            Decision d = Arbiter.decide(renew("a", OptionalLong.empty()), Optional.of(HELD_BY_A), T0.plus(TTL), NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.NotFound());
            assertThat(d.write()).isEmpty();
        }

        @Test
        void aMissingLeaseIsNotFound() {
            assertThat(Arbiter.decide(renew("a", OptionalLong.empty()), Optional.empty(), T0, NEXT).verdict())
                    .isEqualTo(new Verdict.NotFound());
        }
    }

    @Nested
    class Release {
        @Test
        void theOwnerEndsTheLeaseNowAndKeepsTheRowForItsToken() {
            Instant now = T0.plusSeconds(3);
            Decision d = Arbiter.decide(release("a", OptionalLong.empty()), Optional.of(HELD_BY_A), now, NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.Released());
            assertThat(d.write()).contains(lease("a", 7, T0, now));
            assertThat(d.write().get().isLiveAt(now)).isFalse();
        }

        @Test
        void anotherOwnerIsForbidden() { // ATK-02
            Decision d = Arbiter.decide(release("mallory", OptionalLong.empty()), Optional.of(HELD_BY_A), T0, NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.Forbidden());
            assertThat(d.write()).isEmpty();
        }

        @Test
        void aWrongTokenIsForbidden() {
            Decision d = Arbiter.decide(release("a", OptionalLong.of(8)), Optional.of(HELD_BY_A), T0, NEXT);
            assertThat(d.verdict()).isEqualTo(new Verdict.Forbidden());
        }

        @Test
        void anExpiredOrMissingLeaseIsNotFound() {
            assertThat(Arbiter.decide(release("a", OptionalLong.empty()), Optional.of(HELD_BY_A), T0.plus(TTL), NEXT).verdict())
                    .isEqualTo(new Verdict.NotFound());
            assertThat(Arbiter.decide(release("a", OptionalLong.empty()), Optional.empty(), T0, NEXT).verdict())
                    .isEqualTo(new Verdict.NotFound());
        }

        @Test
        void releasingTwiceIsNotFoundTheSecondTime() {
            Decision first = Arbiter.decide(release("a", OptionalLong.empty()), Optional.of(HELD_BY_A), T0, NEXT);
            Decision second = Arbiter.decide(release("a", OptionalLong.empty()), first.write(), T0, NEXT);
            assertThat(second.verdict()).isEqualTo(new Verdict.NotFound());
        }
    }

    @Nested
    class Status {
        private final Command.Status status = new Command.Status("r1", R);

        @Test
        void aLiveLeaseIsLocked() {
            assertThat(Arbiter.decide(status, Optional.of(HELD_BY_A), T0, NEXT).verdict())
                    .isEqualTo(new Verdict.Locked(HELD_BY_A));
        }

        @Test
        void expiredOrMissingIsNotFoundWithoutStaleData() { // ATK-11
            assertThat(Arbiter.decide(status, Optional.of(HELD_BY_A), T0.plus(TTL), NEXT).verdict())
                    .isEqualTo(new Verdict.NotFound());
            assertThat(Arbiter.decide(status, Optional.empty(), T0, NEXT).verdict()).isEqualTo(new Verdict.NotFound());
        }

        @Test
        void neverWrites() {
            assertThat(Arbiter.decide(status, Optional.of(HELD_BY_A), T0, NEXT).write()).isEmpty();
        }
    }

    @Test
    void aLeaseEndsExactlyAtItsExpiry() {
        assertThat(HELD_BY_A.isLiveAt(T0.plus(TTL).minusMillis(1))).isTrue();
        assertThat(HELD_BY_A.isLiveAt(T0.plus(TTL))).isFalse();
    }
}
