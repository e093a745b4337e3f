package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.cancel;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A release that cancels an acquire its caller gave up on: it ends the lease that very acquire
 * granted, if that lease still holds, and nothing else.
 */
class CancellationTest {

    private final JobPartition partition = new JobPartition(Duration.ofSeconds(1));
    private final PartitionState state = partition.state;

    private Step send(String json) {
        return partition.send(json);
    }

    private static String acquire(String id, String owner) {
        return JobPartition.acquire(id, owner, 60, 0);
    }

    private static String reply(Step step) {
        return new String(((Outbound.ReplyRecord) step.answer().orElseThrow()).value(), StandardCharsets.UTF_8);
    }

    @Test
    void theGrantOfTheCancelledAcquireIsReleasedAndTheEventSaysWhichAcquireItEnds() {
        assertThat(reply(send(acquire("a", "o1")))).contains("\"outcome\":\"acquired\"");
        Step cancelled = send(cancel("c", "o1", "a"));
        assertThat(reply(cancelled)).contains("\"outcome\":\"released\"").contains("\"type\":\"release\"");
        assertThat(state.lease("job")).isEmpty();
        List<LeaseEvent> events = cancelled.events().stream()
                .map(e -> EventCodec.decode(e.value())).toList();
        assertThat(events).singleElement().satisfies(event -> {
            assertThat(event.kind()).isEqualTo(LeaseEvent.Kind.RELEASED);
            assertThat(event.cancels()).contains("a");
            assertThat(event.requestId()).contains("c");
            assertThat(event.fencingToken()).isEqualTo(1);
        });
        assertThat(reply(send(acquire("b", "o2")))).as("anyone's now").contains("\"outcome\":\"acquired\"");
    }

    @Test
    void aLeaseItsOwnerHeldBeforeTheAcquireStays() {
        send(acquire("first", "o1"));
        assertThat(reply(send(acquire("again", "o1")))).as("extends, same token").contains("\"fencing_token\":1");
        assertThat(reply(send(cancel("c", "o1", "again")))).contains("\"outcome\":\"not_found\"");
        assertThat(state.lease("job")).map(Lease::fencingToken).contains(1L);
    }

    @Test
    void aRefusedAnUnknownOrAnEndedAcquireHasNothingToCancel() {
        send(acquire("held", "o1"));
        assertThat(reply(send(acquire("refused", "o2")))).contains("\"outcome\":\"not_acquired\"");
        assertThat(reply(send(cancel("c1", "o2", "refused")))).contains("\"outcome\":\"not_found\"");
        assertThat(reply(send(cancel("c2", "o1", "never-sent")))).contains("\"outcome\":\"not_found\"");
        send("{\"request_id\":\"r\",\"type\":\"release\",\"resource\":\"job\",\"owner\":\"o1\"}");
        send(acquire("later", "o1"));
        assertThat(reply(send(cancel("c3", "o1", "held")))).as("a later grant to the same owner is not that one")
                .contains("\"outcome\":\"not_found\"");
        assertThat(state.lease("job")).isPresent();
    }

    @Test
    void onlyTheAcquiresOwnerCancelsItAndARetriedCancellationGetsItsReplyAgain() {
        send(acquire("a", "o1"));
        assertThat(reply(send(cancel("c", "o2", "a")))).contains("\"outcome\":\"forbidden\"");
        assertThat(state.lease("job")).isPresent();
        String released = reply(send(cancel("c2", "o1", "a")));
        assertThat(released).contains("\"outcome\":\"released\"");
        assertThat(reply(send(cancel("c2", "o1", "a")))).isEqualTo(released);
        assertThat(reply(send(cancel("c2", "o1", "other")))).as("the same ID, another cancellation")
                .contains("\"outcome\":\"invalid\"").contains("request_id");
    }

    @Test
    void aCancellationNamesNoTokenOfItsOwn() {
        assertThat(reply(send("{\"request_id\":\"c\",\"type\":\"release\",\"resource\":\"job\",\"owner\":\"o1\","
                + "\"cancels\":\"a\",\"fencing_token\":1}"))).contains("\"outcome\":\"invalid\"")
                .contains("\"field\":\"cancels\"");
        assertThat(reply(send("{\"request_id\":\"d\",\"type\":\"release\",\"resource\":\"job\",\"owner\":\"o1\","
                + "\"cancels\":7}"))).contains("\"outcome\":\"invalid\"").contains("\"field\":\"cancels\"");
    }

    /**
     * A waiter granted at the record of its owner's second, plain acquire: that acquire was
     * refused, so cancelling it releases nothing, though the waiter's token is its record's.
     */
    @Test
    void cancellingARefusedAcquireLeavesTheGrantItsRecordMadeToAWaiter() {
        partition.at(JobPartition.T0, JobPartition.acquire("x", "X", 5, 0));
        assertThat(partition.at(JobPartition.T0.plusSeconds(1), JobPartition.acquire("w", "A", 60, 60_000)).answer())
                .as("A waits behind X").isEmpty();
        Step refused = partition.at(JobPartition.T0.plusSeconds(5), acquire("r", "A"));
        assertThat(reply(refused)).as("the waiter comes first").contains("\"outcome\":\"not_acquired\"");
        assertThat(JobPartition.deferredGrants(refused)).extracting(Lease::owner).containsExactly("A");

        assertThat(reply(partition.at(JobPartition.T0.plusSeconds(6), cancel("c", "A", "r"))))
                .contains("\"outcome\":\"not_found\"");
        assertThat(state.lease("job")).as("the waiter's lease holds").hasValueSatisfying(lease -> {
            assertThat(lease.owner()).isEqualTo("A");
            assertThat(lease.isLiveAt(JobPartition.T0.plusSeconds(6))).isTrue();
        });
    }

    /**
     * One tick grants A's waiters of two resources, both leases with the tick's token: a
     * cancellation of the first acquire keyed by the other resource releases nothing there.
     */
    @Test
    void aCancellationKeyedByAnotherResourceNeverReleasesThatResourcesLease() {
        PartitionDriver driver = partition.driver;
        driver.append("r1", acquireOf("x1", "r1", "X", 5, 0), JobPartition.T0);
        driver.append("r2", acquireOf("x2", "r2", "X", 5, 0), JobPartition.T0);
        assertThat(driver.append("r1", acquireOf("a1", "r1", "A", 60, 60_000), JobPartition.T0.plusSeconds(1)).answer())
                .isEmpty();
        assertThat(driver.append("r2", acquireOf("a2", "r2", "A", 60, 60_000), JobPartition.T0.plusSeconds(1)).answer())
                .isEmpty();
        Step tick = partition.tick(JobPartition.T0.plusSeconds(5));
        assertThat(JobPartition.deferredGrants(tick)).extracting(Lease::resource).containsExactlyInAnyOrder("r1", "r2");

        Step cancelled = driver.append("r2", "{\"request_id\":\"c\",\"type\":\"release\",\"resource\":\"r2\","
                + "\"owner\":\"A\",\"cancels\":\"a1\"}", JobPartition.T0.plusSeconds(6));

        assertThat(reply(cancelled)).contains("\"outcome\":\"not_found\"");
        assertThat(state.holders("r2").liveAt(JobPartition.T0.plusSeconds(6))).extracting(Lease::owner)
                .containsExactly("A");
    }

    private static String acquireOf(String id, String resource, String owner, int ttlSeconds, long waitMs) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource
                + "\",\"owner\":\"" + owner + "\",\"ttl_seconds\":" + ttlSeconds
                + (waitMs > 0 ? ",\"wait_ms\":" + waitMs : "") + "}";
    }
}
