package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The partition state machine, record by record, with no I/O: every rule that decides a reply. */
class PartitionMachineTest {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final EngineSettings ONE_PARTITION = new EngineSettings(Limits.defaults(), Duration.ofMinutes(10),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private final PartitionMachine machine = new PartitionMachine(ONE_PARTITION);

    /** The worker over {@code state}, on partition 0 of a one-partition topic. */
    private PartitionDriver partition(PartitionState state) {
        return PartitionDriver.worker(machine, state, "lock.commands", 0);
    }

    /** A command keyed by its resource, appended at log time {@code at}. */
    private static Step send(PartitionDriver partition, Instant at, String json) {
        return partition.append(resourceOf(json), json, at);
    }

    /** A record of partition 0 at {@code offset}, as the log would deliver it again. */
    private static Inbound record(long offset, Instant at, String json) {
        return new Inbound("lock.commands", 0, offset, resourceOf(json).getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(at));
    }

    private static String resourceOf(String json) {
        return json.replaceAll(".*\"resource\":\"([^\"]*)\".*", "$1");
    }

    private static String acquire(String id, String resource, String owner, int ttl) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"ttl_seconds\":" + ttl + "}";
    }

    private static String renew(String id, String resource, String owner) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"renew\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"ttl_seconds\":30}";
    }

    private static String reply(Step step) {
        return new String(((Outbound.ReplyRecord) step.answer().orElseThrow()).value(), StandardCharsets.UTF_8);
    }

    private static PartitionState fresh() {
        return PartitionState.empty(PartitionPosition.START);
    }

    @Test
    void aNewLeasesTokenIsItsRecordsOffsetPlusOneAboveTheBase() {
        PartitionState state = PartitionState.empty(PartitionPosition.fresh(5, T0, 100));
        String granted = reply(send(partition(state), T0, acquire("a", "job", "o1", 30)));
        assertThat(granted).contains("\"fencing_token\":106");
        assertThat(state.lease("job")).map(Lease::fencingToken).contains(106L);
        assertThat(state.position().nextOffset()).isEqualTo(6);
    }

    @Test
    void theSameOwnerReacquiringKeepsItsTokenAndATakeoverGetsAGreaterOne() {
        PartitionDriver partition = partition(fresh());
        send(partition, T0, acquire("a", "job", "o1", 5));
        assertThat(reply(send(partition, T0.plusSeconds(1), acquire("b", "job", "o1", 5))))
                .contains("\"fencing_token\":1");
        assertThat(reply(send(partition, T0.plusSeconds(2), acquire("c", "job", "o2", 5))))
                .contains("\"outcome\":\"not_acquired\"").contains("\"retry_after_ms\":4000");
        assertThat(reply(send(partition, T0.plusSeconds(7), acquire("d", "job", "o2", 5))))
                .contains("\"owner\":\"o2\"").contains("\"fencing_token\":4");
    }

    @Test
    void applyingTheSameRecordsAgainGivesTheSameBytes() {
        PartitionDriver once = partition(fresh());
        List<String> first = published(once);
        List<String> second = published(partition(fresh()));
        assertThat(second).isEqualTo(first);
        List<String> batched = machine.prepare(once.log()).applyTo(fresh()).stream().map(PartitionMachineTest::value)
                .toList();
        assertThat(batched).as("a batch decides exactly as one record at a time").isEqualTo(first);
        assertThat(first).anyMatch(v -> v.contains("\"event\":\"expired\"")).anyMatch(v -> v.contains("\"outcome\""));
    }

    /** Everything 200 commands on seven resources publish, replies and events, one record at a time. */
    private static List<String> published(PartitionDriver partition) {
        List<String> published = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            String resource = "r" + i % 7;
            String json = i % 3 == 0 ? renew("q" + i, resource, "o" + i % 2) : acquire("q" + i, resource, "o" + i % 3, 1 + i % 4);
            send(partition, T0.plusMillis(137L * i), json).all().forEach(out -> published.add(value(out)));
        }
        return published;
    }

    private static String value(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            return new String(reply.value(), StandardCharsets.UTF_8);
        } else if (out instanceof Outbound.Event event) {
            return event.entry().value();
        }
        return "dead letter: " + ((Outbound.DeadLetter) out).reason();
    }

    @Test
    void aRetryWithinTheRequestRetentionGetsItsStoredReplyAndAfterItIsAppliedAgain() {
        PartitionState state = fresh();
        PartitionDriver partition = partition(state);
        String first = reply(send(partition, T0, acquire("same", "job", "o1", 1)));
        Instant justInside = T0.plus(ONE_PARTITION.requestRetention()).minusMillis(1);
        assertThat(reply(send(partition, justInside, acquire("same", "job", "o1", 1)))).isEqualTo(first);
        Instant atTheEnd = T0.plus(ONE_PARTITION.requestRetention());
        String again = reply(send(partition, atTheEnd, acquire("same", "job", "o1", 1)));
        assertThat(again).isNotEqualTo(first).contains("\"fencing_token\":3");
        assertThat(state.request("same")).map(RequestEntry::offset).contains(2L);
    }

    @Test
    void aRequestIdReusedForAnotherCommandIsInvalidAndChangesNothing() {
        PartitionState state = fresh();
        PartitionDriver partition = partition(state);
        send(partition, T0, acquire("id", "job", "o1", 30));
        String reused = reply(send(partition, T0.plusSeconds(1), acquire("id", "job", "o2", 30)));
        assertThat(reused).contains("\"outcome\":\"invalid\"").contains("\"field\":\"request_id\"");
        assertThat(state.lease("job")).map(Lease::owner).contains("o1");
    }

    @Test
    void aRecordOnAnotherPartitionThanItsKeysIsSentToTheRightOneAndIsNotApplied() {
        EngineSettings three = ONE_PARTITION.withPartitions(3);
        PartitionMachine machine3 = new PartitionMachine(three);
        int right = ResourcePartition.of("job-1", 3);
        int wrong = (right + 1) % 3;
        PartitionState state = fresh();
        Step out = send(PartitionDriver.worker(machine3, state, "lock.commands", wrong), T0,
                acquire("w", "job-1", "o1", 30));
        assertThat(reply(out)).contains("\"outcome\":\"moved\"").contains("\"partition\":" + right)
                .contains("\"partitions\":3").contains("partitioner=murmur2_random");
        assertThat(state.lease("job-1")).isEmpty();
        assertThat(state.request("w")).isEmpty();
        assertThat(reply(send(PartitionDriver.worker(machine3, fresh(), "lock.commands", right), T0,
                acquire("r", "job-1", "o1", 30))))
                .contains("\"outcome\":\"acquired\"");
    }

    @Test
    void aRecordWithoutLogAppendTimeIsDeadLetteredAndLeavesTheClockAlone() {
        PartitionState state = PartitionState.empty(PartitionPosition.fresh(0, T0, 0));
        Outbound out = partition(state).append("job".getBytes(StandardCharsets.UTF_8),
                acquire("x", "job", "o1", 30).getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.empty())
                .answer().orElseThrow();
        assertThat(out).isInstanceOf(Outbound.DeadLetter.class);
        assertThat(((Outbound.DeadLetter) out).reason()).contains("LogAppendTime");
        assertThat(state.position().clock()).isEqualTo(T0);
        assertThat(state.position().nextOffset()).isEqualTo(1);
        assertThat(state.lease("job")).isEmpty();
    }

    @Test
    void timeNeverRunsBackwardsOnAPartition() {
        PartitionState state = fresh();
        PartitionDriver partition = partition(state);
        send(partition, T0, acquire("a", "job", "o1", 10));
        String earlier = reply(send(partition, T0.minusSeconds(60), acquire("b", "job", "o2", 10)));
        assertThat(earlier).contains("\"retry_after_ms\":10000");
        assertThat(state.position().clock()).isEqualTo(T0);
    }

    @Test
    void aRefusedRouteIsDeadLetteredAndNotApplied() {
        PartitionState state = fresh();
        String json = acquire("x", "job", "o1", 30).replace("}", ",\"reply_to\":\"payments\"}");
        Outbound out = send(partition(state), T0, json).answer().orElseThrow();
        assertThat(out).isInstanceOf(Outbound.DeadLetter.class);
        assertThat(state.lease("job")).isEmpty();
    }

    @Test
    void afterLostRecordsNoLeaseIsGrantedOrRenewedUntilTheLongestTtlHasPassed() {
        Lease known = new Lease("job", "o1", 3, T0.minusSeconds(10), T0.plusSeconds(50));
        PartitionPosition lost = PartitionPosition.fresh(10, T0.minusSeconds(10), 0).afterLoss(40);
        PartitionState state = new PartitionState(lost, List.of(known), Map.of(), List.of());
        PartitionDriver partition = partition(state);
        Duration maxTtl = ONE_PARTITION.limits().maxTtl();

        String refused = reply(send(partition, T0, acquire("a", "other", "o2", 30)));
        assertThat(refused).contains("\"outcome\":\"not_acquired\"").contains("\"retry_after_ms\":" + maxTtl.toMillis());
        assertThat(reply(send(partition, T0.plusSeconds(1), renew("b", "job", "o1"))))
                .as("the known lease may have been released and granted again in the lost records")
                .contains("\"outcome\":\"not_found\"");
        assertThat(state.position().quarantine()).map(q -> q.until().orElseThrow()).contains(T0.plus(maxTtl));

        String granted = reply(send(partition, T0.plus(maxTtl), acquire("c", "other", "o2", 30)));
        assertThat(granted).contains("\"outcome\":\"acquired\"").contains("\"fencing_token\":43");
        assertThat(state.position().quarantine()).isEmpty();
    }

    @Test
    void aRedeliveredRecordIsAnsweredAsItWasAndNotAppliedAgain() {
        PartitionState state = fresh();
        PartitionDriver partition = partition(state);
        String first = reply(send(partition, T0, acquire("a", "job", "o1", 30)));
        String retry = reply(send(partition, T0.plusSeconds(1), acquire("a", "job", "o1", 30)));
        send(partition, T0.plusSeconds(2), acquire("b", "job", "o2", 30));
        PartitionPosition before = state.position();

        assertThat(reply(partition.apply(partition.log().get(0)))).isEqualTo(first);
        assertThat(reply(partition.apply(partition.log().get(1)))).isEqualTo(retry);
        Outbound gone = partition.apply(record(1, T0, acquire("swept", "job", "o1", 30))).answer().orElseThrow();
        assertThat(gone).isInstanceOf(Outbound.DeadLetter.class);
        assertThat(((Outbound.DeadLetter) gone).reason()).isEqualTo(PartitionMachine.REPLY_GONE);
        assertThat(state.position()).isEqualTo(before);
    }

    @Test
    void aNewIncarnationCarriesLeasesOverAndItsTokensStartAboveTheOldOnes() {
        PartitionState old = fresh();
        PartitionDriver before = partition(old);
        for (int i = 0; i < 30; i++) {
            send(before, T0.plusMillis(i), acquire("q" + i, "r" + i, "o", 60));
        }
        PartitionDriver next = partition(new PartitionState(old.position().nextIncarnation(),
                List.of(old.lease("r0").orElseThrow()), Map.of(), List.of()));
        assertThat(reply(send(next, T0.plusSeconds(1), acquire("n0", "r0", "thief", 60))))
                .as("still held").contains("\"outcome\":\"not_acquired\"");
        assertThat(reply(send(next, T0.plusSeconds(1), acquire("n1", "fresh", "o", 60))))
                .as("above token 30, the old incarnation's last").contains("\"fencing_token\":32");
    }
}
