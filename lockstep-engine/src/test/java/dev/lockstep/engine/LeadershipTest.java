package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.T0;
import static dev.lockstep.engine.JobPartition.acquire;
import static dev.lockstep.engine.JobPartition.deferredGrants;
import static dev.lockstep.engine.JobPartition.events;
import static dev.lockstep.engine.JobPartition.granted;
import static dev.lockstep.engine.JobPartition.release;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Leader election in the log: a lease publishes its holder's value; when such an announced lease
 * ends and nobody holds its resource after the record that ended it, a {@code vacant} event says so.
 */
class LeadershipTest {

    private final JobPartition partition = new JobPartition(Duration.ofSeconds(1));

    private static String candidate(String id, String owner, String value, long waitMs) {
        return acquire(id, owner, 10, waitMs, ",\"value\":\"" + value + "\"");
    }

    private static List<LeaseEvent.Kind> kinds(Step step) {
        return events(step).stream().map(LeaseEvent::kind).toList();
    }

    @Test
    void theLeaseEventsAndRepliesCarryTheValueAndAReAcquireReplacesIt() {
        Step won = partition.send(candidate("a1", "a", "10.0.0.1:8080", 0));
        assertThat(granted(won).value()).contains("10.0.0.1:8080");
        assertThat(events(won)).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.GRANTED);
            assertThat(e.value()).contains("10.0.0.1:8080");
        });
        assertThat(new String(won.events().get(0).value(), StandardCharsets.UTF_8))
                .contains("\"value\":\"10.0.0.1:8080\"");

        Step moved = partition.send(candidate("a2", "a", "10.0.0.1:9090", 0));
        assertThat(granted(moved).fencingToken()).as("the same term").isEqualTo(granted(won).fencingToken());
        assertThat(events(moved)).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(LeaseEvent.Kind.EXTENDED);
            assertThat(e.value()).contains("10.0.0.1:9090");
        });
        Step renewed = partition.send("{\"request_id\":\"r\",\"type\":\"renew\",\"resource\":\"job\",\"owner\":\"a\","
                + "\"ttl_seconds\":10}");
        assertThat(partition.state.lease("job")).map(Lease::value).contains(java.util.Optional.of("10.0.0.1:9090"));
        assertThat(events(renewed).get(0).value()).as("a renew keeps it").contains("10.0.0.1:9090");
    }

    @Test
    void aReleaseNobodyFollowsLeavesTheGroupVacant() {
        Lease leader = granted(partition.send(candidate("a1", "a", "x", 0)));
        Step resigned = partition.send(release("rel", "a"));
        assertThat(kinds(resigned)).containsExactly(LeaseEvent.Kind.RELEASED, LeaseEvent.Kind.VACANT);
        LeaseEvent vacant = events(resigned).get(1);
        assertThat(vacant.owner()).isEqualTo("a");
        assertThat(vacant.fencingToken()).as("the term that ended").isEqualTo(leader.fencingToken());
        assertThat(vacant.at()).isEqualTo(events(resigned).get(0).at());
        assertThat(vacant.requestId()).contains("rel");
        assertThat(vacant.value()).isEmpty();
    }

    @Test
    void anExpiryNobodyFollowsLeavesTheGroupVacantAtTheLeasesEnd() {
        Lease leader = granted(partition.at(T0, candidate("a1", "a", "x", 0)));
        Step tick = partition.tick(T0.plusSeconds(11));
        assertThat(kinds(tick)).containsExactly(LeaseEvent.Kind.EXPIRED, LeaseEvent.Kind.VACANT);
        assertThat(events(tick).get(1).at()).isEqualTo(leader.expiresAt());
        assertThat(events(tick).get(1).requestId()).as("a tick has none").isEmpty();
    }

    @Test
    void aWaitingCandidateTakesOverWithoutAVacancyAndPublishesItsOwnValue() {
        partition.at(T0, candidate("a1", "a", "x", 0));
        partition.at(T0.plusSeconds(1), candidate("b1", "b", "y", 60_000));
        Step tick = partition.tick(T0.plusSeconds(10));
        assertThat(kinds(tick)).containsExactly(LeaseEvent.Kind.EXPIRED, LeaseEvent.Kind.TAKEN_OVER);
        assertThat(deferredGrants(tick)).singleElement().satisfies(b -> {
            assertThat(b.owner()).isEqualTo("b");
            assertThat(b.value()).contains("y");
        });
        assertThat(events(tick).get(1).value()).contains("y");

        Step resigned = partition.at(T0.plusSeconds(12), release("rel-b", "b"));
        assertThat(kinds(resigned)).containsExactly(LeaseEvent.Kind.RELEASED, LeaseEvent.Kind.VACANT);
    }

    @Test
    void aNewLeaderInTheRecordThatShowedTheExpiryLeavesNoVacancy() {
        partition.at(T0, candidate("a1", "a", "x", 0));
        Step next = partition.at(T0.plusSeconds(10), candidate("b1", "b", "y", 0));
        assertThat(kinds(next)).containsExactly(LeaseEvent.Kind.EXPIRED, LeaseEvent.Kind.TAKEN_OVER);
    }

    @Test
    void aLeaseWithoutAValueIsALockAndItsEndSaysNothingMore() {
        partition.send(acquire("a1", "a", 10, 0));
        assertThat(kinds(partition.send(release("rel", "a")))).containsExactly(LeaseEvent.Kind.RELEASED);
        partition.at(T0.plusSeconds(20), acquire("b1", "b", 10, 0));
        assertThat(kinds(partition.tick(T0.plusSeconds(31)))).containsExactly(LeaseEvent.Kind.EXPIRED);
    }

    @Test
    void aSharedHolderLeftLeavesNoVacancyUntilTheLastOneGoes() {
        partition.send(acquire("a1", "a", 10, 0, ",\"limit\":2,\"value\":\"x\""));
        partition.send(acquire("b1", "b", 10, 0, ",\"limit\":2,\"value\":\"y\""));
        assertThat(kinds(partition.send(release("rel-a", "a")))).containsExactly(LeaseEvent.Kind.RELEASED);
        assertThat(kinds(partition.send(release("rel-b", "b"))))
                .containsExactly(LeaseEvent.Kind.RELEASED, LeaseEvent.Kind.VACANT);
    }
}
