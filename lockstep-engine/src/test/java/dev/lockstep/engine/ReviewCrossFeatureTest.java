package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.T0;
import static dev.lockstep.engine.JobPartition.deferredGrants;
import static dev.lockstep.engine.JobPartition.verdict;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Review of issue 42 (where features meet): engine cases found by reading the change, each
 * written against the promise in docs/protocol.md it breaks. They fail on the code as reviewed.
 */
class ReviewCrossFeatureTest {

    private final JobPartition partition = new JobPartition(Duration.ofSeconds(1));
    private final PartitionState state = partition.state;

    private Step at(Instant when, String resource, String json) {
        partition.skipTo(when);
        return partition.driver.append(resource, json, when);
    }

    private static String acquire(String id, String resource, String owner, int ttlSeconds, long waitMs) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"ttl_seconds\":" + ttlSeconds + (waitMs > 0 ? ",\"wait_ms\":" + waitMs : "") + "}";
    }

    private static String cancel(String id, String resource, String owner, String acquireId) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"release\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"cancels\":\"" + acquireId + "\"}";
    }

    /**
     * protocol.md, Cancellation: a cancellation "releases the lease that very acquire granted, if that
     * lease still holds, and nothing else"; one of a waiting acquire keyed by another resource is
     * {@code forbidden}. One tick grants A's waiters of r1 and r2 together, so both leases carry the
     * tick's token. A cancellation of the r1 acquire, keyed by r2, releases A's lease of r2:
     * {@code Cancellation.grantedToken} compares the token only, never the resource of the lease the
     * acquire's reply names.
     */
    @Test
    void aCancellationKeyedByAnotherResourceNeverReleasesThatResourcesLease() {
        at(T0, "r1", acquire("x1", "r1", "X", 5, 0));
        at(T0, "r2", acquire("x2", "r2", "X", 5, 0));
        assertThat(at(T0.plusSeconds(1), "r1", acquire("a1", "r1", "A", 60, 60_000)).answer()).isEmpty();
        assertThat(at(T0.plusSeconds(1), "r2", acquire("a2", "r2", "A", 60, 60_000)).answer()).isEmpty();
        Step tick = partition.tick(T0.plusSeconds(5));
        assertThat(deferredGrants(tick)).as("one tick grants both waiters, with its token")
                .extracting(Lease::resource).containsExactlyInAnyOrder("r1", "r2");

        Step cancelled = at(T0.plusSeconds(6), "r2", cancel("c", "r2", "A", "a1"));

        assertThat(verdict(cancelled)).as("a1 granted nothing on r2").isNotInstanceOf(Verdict.Released.class);
        assertThat(state.holders("r2").liveAt(T0.plusSeconds(6))).as("the lease a2 was granted holds")
                .extracting(Lease::owner).containsExactly("A");
    }

    /**
     * protocol.md, Shares: "A record that frees permits hands them to the waiters in order, as many as
     * the rules grant"; issue 42: no stranded waiter while there is room. A semaphore of two, full;
     * owner A waits twice (two acquires in flight), B after it. X's release grants A's first waiter;
     * Y's release frees the second permit, but A's second waiter heads the queue and
     * {@code Queueing.grantable} never grants a waiter whose owner holds: B waits beside a free permit
     * for as long as A renews, and both waits end unanswered by the room there was.
     */
    @Test
    void anOwnersSecondWaiterDoesNotStrandTheWaitersBehindItBesideAFreePermit() {
        String limit2 = ",\"limit\":2";
        partition.at(T0, JobPartition.acquire("x", "X", 60, 0, limit2));
        partition.at(T0, JobPartition.acquire("y", "Y", 60, 0, limit2));
        partition.at(T0.plusSeconds(1), JobPartition.acquire("a1", "A", 60, 60_000, limit2));
        partition.at(T0.plusSeconds(1), JobPartition.acquire("a2", "A", 60, 60_000, limit2));
        partition.at(T0.plusSeconds(1), JobPartition.acquire("b", "B", 60, 60_000, limit2));
        assertThat(state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("a1", "a2", "b");

        partition.at(T0.plusSeconds(2), JobPartition.release("rx", "X"));
        partition.skipTo(T0.plusSeconds(2));
        partition.handOvers();
        partition.at(T0.plusSeconds(3), JobPartition.release("ry", "Y"));
        partition.skipTo(T0.plusSeconds(3));
        partition.handOvers();

        List<String> holders = new ArrayList<>();
        state.holders("job").liveAt(T0.plusSeconds(3)).forEach(lease -> holders.add(lease.owner()));
        assertThat(holders).as("a permit is free and B waits for it; waiting " + state.queues().queue("job"))
                .contains("B");
    }
}
