package dev.lockstep.history;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Share;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What clients believed, against the leases the replies gave them: each planted fault is caught. */
class BeliefsTest {

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");

    private static Instant at(long millis) {
        return T0.plusMillis(millis);
    }

    private static final Map<String, List<HistoryChecker.SeenLease>> LEASES = Map.of(
            "job", List.of(new HistoryChecker.SeenLease("a", 1, at(0), at(3_000)),
                    new HistoryChecker.SeenLease("b", 5, at(3_000), at(6_000))),
            "sem", List.of(new HistoryChecker.SeenLease("a", 1, at(0), at(9_000)),
                    new HistoryChecker.SeenLease("b", 2, at(0), at(9_000)),
                    new HistoryChecker.SeenLease("c", 3, at(0), at(9_000))));

    private static Belief lock(String client, String owner, long token, long from, long until) {
        return new Belief(client, "job", owner, token, Share.EXCLUSIVE, at(from), at(until), "released");
    }

    private static Belief permit(String owner, long token, int limit) {
        return new Belief("client-" + owner, "sem", owner, token, Share.shared(limit), at(10), at(2_000), "released");
    }

    @Test
    void beliefsInsideTheirLeasesOneAfterTheOtherAreSafe() {
        assertThat(Beliefs.violations(LEASES, List.of(lock("p1", "a", 1, 5, 2_700), lock("p2", "b", 5, 3_001, 5_400)), HistoryChecker.BrokerClocks.TRUE))
                .isEmpty();
    }

    @Test
    void aClientActingPastItsLeasesEndIsCaughtAndSoIsTheOverlapWithTheNextHolder() {
        List<String> violations = Beliefs.violations(LEASES,
                List.of(lock("frozen", "a", 1, 5, 4_000), lock("next", "b", 5, 3_001, 5_400)), HistoryChecker.BrokerClocks.TRUE);
        assertThat(violations).anyMatch(v -> v.contains("1000 ms past its lease's end"))
                .anyMatch(v -> v.startsWith("two clients acted as holders at once"));
    }

    @Test
    void withASkewedBrokerClockBeliefsAreJudgedSideBySideAndByTokenNotByLogTime() {
        List<String> violations = Beliefs.violations(LEASES,
                List.of(lock("frozen", "a", 1, 5, 4_000), lock("next", "b", 5, 3_001, 5_400),
                        lock("impostor", "a", 5, 6_000, 6_500)), HistoryChecker.BrokerClocks.SKEWED);
        assertThat(violations).noneMatch(v -> v.contains("past its lease's end"))
                .anyMatch(v -> v.startsWith("two clients acted as holders at once"))
                .anyMatch(v -> v.contains("that token was granted to b")).hasSize(2);
    }

    @Test
    void aBeliefBeforeTheGrantOfAnotherOwnersOrAnUnknownTokenIsCaught() {
        assertThat(Beliefs.violations(LEASES, List.of(lock("early", "b", 5, 2_990, 3_500)), HistoryChecker.BrokerClocks.TRUE))
                .singleElement().asString().contains("10 ms before its lease was granted");
        assertThat(Beliefs.violations(LEASES, List.of(lock("impostor", "a", 5, 3_100, 3_500)), HistoryChecker.BrokerClocks.TRUE))
                .singleElement().asString().contains("that token was granted to b");
        assertThat(Beliefs.violations(LEASES, List.of(lock("dreamer", "a", 9, 100, 200)), HistoryChecker.BrokerClocks.TRUE))
                .singleElement().asString().contains("no reply granted that token");
    }

    @Test
    void twoClientsOfOneOwnerHoldingItsLeaseAtOnceAreOneHolderButAnotherOfItsTokensIsNot() {
        assertThat(Beliefs.violations(LEASES, List.of(lock("thread-1", "a", 1, 5, 2_000),
                lock("thread-2", "a", 1, 1_000, 2_900)), HistoryChecker.BrokerClocks.TRUE)).isEmpty();
        assertThat(Beliefs.violations(Map.of("job", List.of(new HistoryChecker.SeenLease("a", 1, at(0), at(3_000)),
                new HistoryChecker.SeenLease("a", 5, at(0), at(6_000)))), List.of(lock("thread-1", "a", 1, 5, 2_000),
                lock("thread-2", "a", 5, 1_000, 2_900)), HistoryChecker.BrokerClocks.TRUE)).singleElement().asString()
                .startsWith("two clients acted as holders at once");
    }

    @Test
    void sharedHoldersUpToTheirLimitAreSafeAndOneMoreIsCaught() {
        assertThat(Beliefs.violations(LEASES, List.of(permit("a", 1, 3), permit("b", 2, 3), permit("c", 3, 3)), HistoryChecker.BrokerClocks.TRUE))
                .isEmpty();
        assertThat(Beliefs.violations(LEASES, List.of(permit("a", 1, 2), permit("b", 2, 2), permit("c", 3, 2)), HistoryChecker.BrokerClocks.TRUE))
                .anyMatch(v -> v.startsWith("3 clients acted as shared holders at once, over the limit of 2"));
    }
}
