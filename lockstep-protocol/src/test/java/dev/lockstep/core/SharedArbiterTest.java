package dev.lockstep.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The rules for shares: a semaphore's permits (up to its limit of shared holders) and a read-write
 * lock's readers and writer, each holder with its own lease and token, one permit per owner.
 */
class SharedArbiterTest {

    private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");
    private static final Duration TTL = Duration.ofSeconds(30);
    private static final String R = "jobs:nightly";
    private static final Share FOUR = Share.shared(4);

    private static Command.Acquire acquire(String owner, Share share) {
        return new Command.Acquire("r-" + owner, R, owner, TTL, Duration.ZERO, share);
    }

    private static Lease lease(String owner, long token, int permit, Share share, Instant expires) {
        return new Lease(R, owner, token, T0, expires, permit, share);
    }

    private static Lease shared(String owner, long token, int permit, Instant expires) {
        return lease(owner, token, permit, FOUR, expires);
    }

    /** Grants the acquires one after another, a second apart, each its own token; returns the holders. */
    private static Holders granted(Share share, String... owners) {
        Holders holders = Holders.NONE;
        for (int i = 0; i < owners.length; i++) {
            Decision decision = Arbiter.decide(acquire(owners[i], share), holders, T0.plusSeconds(i), 10 + i);
            assertThat(decision.verdict()).as(owners[i]).isInstanceOf(Verdict.Acquired.class);
            List<Lease> next = new java.util.ArrayList<>(holders.leases());
            next.add(decision.write().orElseThrow());
            holders = new Holders(next);
        }
        return holders;
    }

    @Nested
    class Semaphore {
        @Test
        void admitsUpToItsLimitEachHolderWithItsOwnPermitAndToken() {
            Holders four = granted(FOUR, "a", "b", "c", "d");
            assertThat(four.leases()).extracting(Lease::permit).containsExactly(0, 1, 2, 3);
            assertThat(four.leases()).extracting(Lease::fencingToken).containsExactly(10L, 11L, 12L, 13L);
            assertThat(four.leases()).extracting(Lease::share).containsOnly(FOUR);
        }

        @Test
        void aFullOneRefusesSayingWhenTheFirstPermitFrees() {
            Holders four = granted(FOUR, "a", "b", "c", "d");
            Decision d = Arbiter.decide(acquire("e", FOUR), four, T0.plusSeconds(10), 20);
            assertThat(d.verdict()).isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(20)));
            assertThat(d.write()).isEmpty();
        }

        @Test
        void aGrantTakesTheLowestPermitNoLiveLeaseHolds() {
            Holders holders = new Holders(List.of(shared("a", 1, 0, T0.plusSeconds(60)),
                    shared("b", 2, 1, T0.plusSeconds(5)), shared("c", 3, 2, T0.plusSeconds(60))));
            Decision d = Arbiter.decide(acquire("e", FOUR), holders, T0.plusSeconds(10), 20);
            assertThat(d.write().orElseThrow().permit()).as("b's lease ended").isEqualTo(1);
            assertThat(d.write().orElseThrow().fencingToken()).isEqualTo(20);
        }

        @Test
        void theSameOwnerExtendsItsOwnPermitAndToken() {
            Holders two = granted(FOUR, "a", "b");
            Decision d = Arbiter.decide(acquire("b", FOUR), two, T0.plusSeconds(10), 20);
            Lease extended = d.write().orElseThrow();
            assertThat(extended.permit()).isEqualTo(1);
            assertThat(extended.fencingToken()).isEqualTo(11);
            assertThat(extended.expiresAt()).isEqualTo(T0.plusSeconds(40));
        }

        @Test
        void anotherLimitWhileItHasHoldersIsInvalidNamingBoth() {
            Holders two = granted(FOUR, "a", "b");
            Decision d = Arbiter.decide(acquire("c", Share.shared(5)), two, T0.plusSeconds(10), 20);
            assertThat(d.verdict()).isInstanceOf(Verdict.Invalid.class);
            FieldError error = ((Verdict.Invalid) d.verdict()).problem().errors().get(0);
            assertThat(error.field()).isEqualTo("limit");
            assertThat(error.message()).contains("admits 4").contains("names 5");
            assertThat(d.write()).isEmpty();
            assertThat(Arbiter.decide(acquire("b", Share.shared(5)), two, T0.plusSeconds(10), 20).verdict())
                    .as("its own holder too").isInstanceOf(Verdict.Invalid.class);
        }

        @Test
        void anotherLimitOnceEveryHolderEndedIsTheResourcesNewOne() {
            Holders two = granted(FOUR, "a", "b");
            Decision d = Arbiter.decide(acquire("c", Share.shared(2)), two, T0.plus(TTL).plusSeconds(1), 20);
            assertThat(d.write().orElseThrow().share()).isEqualTo(Share.shared(2));
            assertThat(d.write().orElseThrow().permit()).isZero();
        }

        @Test
        void aLimitOfOneAdmitsOneHolder() {
            Holders one = granted(Share.shared(1), "a");
            assertThat(Arbiter.decide(acquire("b", Share.shared(1)), one, T0.plusSeconds(1), 20).verdict())
                    .isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(29)));
        }
    }

    @Nested
    class ReadWrite {
        @Test
        void aWriterWaitsForEveryReaderToEnd() {
            Holders readers = granted(FOUR, "r1", "r2", "r3");
            Decision d = Arbiter.decide(acquire("w", Share.EXCLUSIVE), readers, T0.plusSeconds(10), 20);
            assertThat(d.verdict()).as("r3's ends last, 22 s on").isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(22)));
        }

        @Test
        void aReaderWaitsForTheWriterWhateverItsLimit() {
            Holders writer = granted(Share.EXCLUSIVE, "w");
            for (Share reader : List.of(FOUR, Share.shared(Share.MAX_LIMIT))) {
                Decision d = Arbiter.decide(acquire("r", reader), writer, T0.plusSeconds(10), 20);
                assertThat(d.verdict()).isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(20)));
            }
        }

        @Test
        void aWriterAfterTheReadersEndedGetsTheWholeResource() {
            Holders readers = granted(FOUR, "r1", "r2");
            Decision d = Arbiter.decide(acquire("w", Share.EXCLUSIVE), readers, T0.plusSeconds(31), 20);
            Lease written = d.write().orElseThrow();
            assertThat(written.share()).isEqualTo(Share.EXCLUSIVE);
            assertThat(written.permit()).isZero();
        }

        @Test
        void anOwnerHoldsOneModeAtATime() {
            Holders readers = granted(FOUR, "r1", "r2");
            Decision d = Arbiter.decide(acquire("r1", Share.EXCLUSIVE), readers, T0.plusSeconds(10), 20);
            FieldError error = ((Verdict.Invalid) d.verdict()).problem().errors().get(0);
            assertThat(error.field()).isEqualTo("mode");
            assertThat(error.message()).contains("holds this resource shared").contains("release");
        }
    }

    @Nested
    class RenewReleaseStatus {
        private final Holders three = granted(FOUR, "a", "b", "c");

        @Test
        void renewAndReleaseActOnTheOwnersOwnLeaseAlone() {
            Decision renewed = Arbiter.decide(new Command.Renew("x", R, "b", TTL, OptionalLong.of(11)), three,
                    T0.plusSeconds(10), 20);
            assertThat(renewed.write().orElseThrow().permit()).isEqualTo(1);
            assertThat(renewed.write().orElseThrow().expiresAt()).isEqualTo(T0.plusSeconds(40));
            Decision released = Arbiter.decide(new Command.Release("x", R, "c", OptionalLong.empty()), three,
                    T0.plusSeconds(10), 20);
            assertThat(released.verdict()).isEqualTo(new Verdict.Released());
            assertThat(released.write().orElseThrow().owner()).isEqualTo("c");
        }

        @Test
        void anOwnerHoldingNoneOfThemOrNamingAnotherTokenIsForbidden() {
            assertThat(Arbiter.decide(new Command.Renew("x", R, "z", TTL, OptionalLong.empty()), three,
                    T0.plusSeconds(10), 20).verdict()).isEqualTo(new Verdict.Forbidden());
            assertThat(Arbiter.decide(new Command.Release("x", R, "b", OptionalLong.of(10)), three,
                    T0.plusSeconds(10), 20).verdict()).as("a's token").isEqualTo(new Verdict.Forbidden());
        }

        @Test
        void noLiveLeaseIsNotFound() {
            assertThat(Arbiter.decide(new Command.Release("x", R, "a", OptionalLong.empty()), three,
                    T0.plusSeconds(40), 20).verdict()).isEqualTo(new Verdict.NotFound());
            assertThat(Arbiter.decide(new Command.Status("x", R), three, T0.plusSeconds(40), 20).verdict())
                    .isEqualTo(new Verdict.NotFound());
        }

        @Test
        void statusListsTheLiveHoldersByPermit() {
            Decision d = Arbiter.decide(new Command.Status("x", R), three, T0.plusSeconds(30), 20);
            assertThat(((Verdict.Locked) d.verdict()).holders()).extracting(Lease::owner).containsExactly("b", "c");
        }
    }

    @Test
    void sharesLeasesAndHoldersRefuseWhatCannotBe() {
        assertThatThrownBy(() -> new Share(Mode.EXCLUSIVE, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Share.shared(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Share.shared(Share.MAX_LIMIT + 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> shared("a", 1, 4, T0)).as("permits of four are 0 to 3")
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Holders(List.of(shared("a", 1, 0, T0), shared("b", 2, 0, T0))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
