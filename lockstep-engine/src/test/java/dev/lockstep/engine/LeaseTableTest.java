package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A partition's leases by resource and permit: what changes, what ends, and a change of share. */
class LeaseTableTest {

    private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");
    private static final Share FOUR = Share.shared(4);

    private static Lease shared(String owner, int permit, long token, int seconds) {
        return new Lease("sem", owner, token, T0, T0.plusSeconds(seconds), permit, FOUR);
    }

    @Test
    void eachPermitKeepsItsLatestLeaseAndEndsInOrder() {
        LeaseTable table = new LeaseTable(List.of(), T0);
        table.put(shared("a", 0, 1, 30));
        table.put(shared("b", 1, 2, 10));
        table.put(shared("c", 2, 3, 20));
        assertThat(table.holders("sem").leases()).extracting(Lease::owner).containsExactly("a", "b", "c");

        assertThat(table.expireUntil(T0.plusSeconds(25))).extracting(Lease::owner).containsExactly("b", "c");
        Lease renewed = new Lease("sem", "a", 1, T0, T0.plusSeconds(60), 0, FOUR);
        table.put(renewed);
        assertThat(table.expireUntil(T0.plusSeconds(40))).as("a's first end is no longer its end").isEmpty();
        assertThat(table.expireUntil(T0.plusSeconds(60))).containsExactly(renewed);
        assertThat(table.changed()).hasSize(3);
    }

    @Test
    void aReleaseRemovesItsPermitAlone() {
        LeaseTable table = new LeaseTable(List.of(shared("a", 0, 1, 30), shared("b", 1, 2, 30)), T0);
        table.remove(shared("a", 0, 1, 30));
        assertThat(table.holders("sem").leases()).extracting(Lease::owner).containsExactly("b");
        assertThat(table.removed()).containsExactly(new LeaseKey("sem", 0));
        table.remove(shared("b", 1, 2, 30));
        assertThat(table.holders("sem").leases()).isEmpty();
        assertThat(table.all()).isEmpty();
    }

    /** The store keeps a resource's rows of one share: a grant of another takes the ended ones' place. */
    @Test
    void aGrantOfAnotherShareReplacesTheEndedLeasesOfTheOld() {
        LeaseTable table = new LeaseTable(List.of(shared("a", 0, 1, 10), shared("b", 1, 2, 10),
                shared("c", 3, 3, 10)), T0);
        Lease writer = new Lease("sem", "w", 9, T0.plusSeconds(20), T0.plusSeconds(50));
        table.put(writer);
        assertThat(table.holders("sem").leases()).containsExactly(writer);
        assertThat(table.removed()).containsExactlyInAnyOrder(new LeaseKey("sem", 1), new LeaseKey("sem", 3));
        assertThat(table.changed()).containsExactly(writer);
    }

    @Test
    void aReplayRecordsNoChangesAndForgetsWhatEndedLongAgo() {
        LeaseTable table = new LeaseTable(List.of(), T0);
        table.forReplay();
        table.put(shared("a", 0, 1, 10));
        table.put(shared("b", 1, 2, 100));
        assertThat(table.changed()).isEmpty();
        table.forgetEndedBy(T0.plusSeconds(50));
        assertThat(table.all()).extracting(Lease::owner).containsExactly("b");
        table.forgetEndedBy(T0.plusSeconds(100));
        assertThat(table.all()).isEmpty();
    }
}
