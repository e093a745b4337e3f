package dev.lockstep.engine;

import static dev.lockstep.engine.GrowingTopic.resource;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.Growth;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** A command topic grown from two partitions to three, applied record by record (docs/architecture.md, "Growing the command topic"). */
class GrowthTest {

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");
    /** On partition 0 of two, on the new partition 2 of three. */
    private static final String TO_NEW = resource("to-new", 2, 0, 3, 2);
    /** On partition 1 of two, on partition 0 of three: from one old partition to another. */
    private static final String TO_OLD = resource("to-old", 2, 1, 3, 0);
    /** On partition 0 of two and of three. */
    private static final String STAYS = resource("stays", 2, 0, 3, 0);

    private final GrowingTopic topic = new GrowingTopic(2);

    private static String acquire(String id, String resource, String owner, int ttlSeconds, long waitMs) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"ttl_seconds\":" + ttlSeconds + (waitMs > 0 ? ",\"wait_ms\":" + waitMs : "") + "}";
    }

    private static String status(String id, String resource) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"status\",\"resource\":\"" + resource + "\"}";
    }

    private static String release(String id, String resource, String owner, String fields) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"release\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\"" + fields + "}";
    }

    private static Verdict verdict(Outbound out) {
        return ReplyDecoder.decode(((Outbound.ReplyRecord) out).value()).orElseThrow().reply();
    }

    private static Verdict verdict(Step step) {
        return verdict(step.answer().orElseThrow());
    }

    private static Lease granted(Step step) {
        return ((Verdict.Acquired) verdict(step)).lease();
    }

    private Step send(int partition, String resource, String json, Instant at) {
        return topic.send(partition, resource, json, at);
    }

    private static long bound(List<Step> seals, int partition) {
        return seals.get(partition).transfers().stream().filter(t -> t.header().equals(Growth.TAKEN))
                .map(t -> new String(t.headerValue())).map(h -> Long.parseLong(h.substring(h.indexOf("token_bound=") + 12)))
                .findFirst().orElseThrow();
    }

    @Test
    void aLeaseKeepsItsOwnerAndTokenOnItsNewPartitionAndTheNextGrantThereIsAboveEveryOldToken() {
        Lease held = granted(send(0, TO_NEW, acquire("a1", TO_NEW, "A", 30, 0), T0));
        List<Step> seals = topic.seal(3, T0.plusSeconds(1));
        assertThat(seals).allSatisfy(seal -> assertThat(seal.answer()).isEmpty());

        assertThat(verdict(send(0, TO_NEW, status("s-old", TO_NEW), T0.plusSeconds(1))))
                .as("after its seal the old partition sends the resource on").isEqualTo(new Verdict.Moved(2, 3));
        assertThat(verdict(send(2, TO_NEW, acquire("b1", TO_NEW, "B", 30, 0), T0.plusSeconds(1))))
                .as("the new partition sends it back until the old one's state is taken over")
                .isEqualTo(new Verdict.Moved(0, 3));

        topic.deliver(T0.plusSeconds(2));
        Verdict.Locked locked = (Verdict.Locked) verdict(send(2, TO_NEW, status("s-new", TO_NEW), T0.plusSeconds(2)));
        assertThat(locked.lease().owner()).isEqualTo("A");
        assertThat(locked.lease().fencingToken()).isEqualTo(held.fencingToken());
        assertThat(locked.lease().expiresAt()).as("what it had left, from the new partition's time")
                .isAfterOrEqualTo(held.expiresAt());
        assertThat(verdict(send(2, TO_NEW, acquire("b2", TO_NEW, "B", 30, 0), T0.plusSeconds(2))))
                .isInstanceOf(Verdict.NotAcquired.class);
        assertThat(verdict(send(2, TO_NEW, release("r1", TO_NEW, "A", ",\"fencing_token\":" + held.fencingToken()),
                T0.plusSeconds(3)))).isInstanceOf(Verdict.Released.class);
        Lease next = granted(send(2, TO_NEW, acquire("b3", TO_NEW, "B", 30, 0), T0.plusSeconds(3)));
        assertThat(next.fencingToken()).isGreaterThan(bound(seals, 0)).isGreaterThan(held.fencingToken());
    }

    @Test
    void aResourceThatStaysIsDecidedThroughoutAndOneThatMovesBetweenOldPartitionsArrives() {
        Lease stays = granted(send(0, STAYS, acquire("a1", STAYS, "A", 30, 0), T0));
        Lease moves = granted(send(1, TO_OLD, acquire("a2", TO_OLD, "A", 30, 0), T0));
        topic.seal(3, T0.plusSeconds(1));
        assertThat(verdict(send(0, STAYS, status("s1", STAYS), T0.plusSeconds(1))))
                .isEqualTo(new Verdict.Locked(List.of(stays), 0, java.util.OptionalInt.empty()));
        assertThat(verdict(send(0, TO_OLD, status("s2", TO_OLD), T0.plusSeconds(1))))
                .isEqualTo(new Verdict.Moved(1, 3));
        topic.deliver(T0.plusSeconds(2));
        assertThat(((Verdict.Locked) verdict(send(0, TO_OLD, status("s3", TO_OLD), T0.plusSeconds(2)))).lease()
                .fencingToken()).isEqualTo(moves.fencingToken());
        assertThat(topic.partition(1).state().holders(TO_OLD).leases()).as("gone from where it was").isEmpty();
    }

    @Test
    void waitersKeepTheirOrderAndAreGrantedOnTheNewPartitionWithNewTokens() {
        Lease held = granted(send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0));
        assertThat(send(0, TO_NEW, acquire("b", TO_NEW, "B", 30, 60_000), T0).answer()).as("B waits").isEmpty();
        assertThat(send(0, TO_NEW, acquire("c", TO_NEW, "C", 30, 60_000), T0).answer()).as("C waits").isEmpty();
        List<Step> seals = topic.seal(3, T0.plusSeconds(1));
        topic.deliver(T0.plusSeconds(2));
        assertThat(topic.partition(2).state().queues().queue(TO_NEW)).extracting(Waiter::owner).containsExactly("B", "C");

        Step released = send(2, TO_NEW, release("r", TO_NEW, "A", ",\"fencing_token\":" + held.fencingToken()),
                T0.plusSeconds(3));
        assertThat(released.deferred()).hasSize(1);
        Lease toB = ((Verdict.Acquired) verdict(released.deferred().get(0))).lease();
        assertThat(toB.owner()).isEqualTo("B");
        assertThat(toB.fencingToken()).isGreaterThan(bound(seals, 0));
        Step releasedB = send(2, TO_NEW, release("rb", TO_NEW, "B", ""), T0.plusSeconds(4));
        assertThat(((Verdict.Acquired) verdict(releasedB.deferred().get(0))).lease().owner()).isEqualTo("C");
    }

    @Test
    void aWaiterIsGrantedOnceTheCarriedLeaseRanWhatItHadLeftAndNotBeforeTheTaken() {
        send(0, TO_NEW, acquire("a", TO_NEW, "A", 1, 0), T0);
        send(0, TO_NEW, acquire("b", TO_NEW, "B", 30, 60_000), T0);
        topic.seal(3, T0.plusMillis(100));
        List<Outbound.Transfer> takens = new ArrayList<>(topic.inFlight.stream()
                .filter(t -> t.header().equals(Growth.TAKEN)).toList());
        topic.inFlight.removeAll(takens);
        topic.deliver(T0.plusSeconds(5));
        // 0.9 s left at the seal, so it ends at 5.9 s here; but partition 2 does not decide it yet.
        assertThat(send(2, STAYS + "-z", status("z", STAYS + "-z"), T0.plusSeconds(7)).deferred()).isEmpty();
        topic.inFlight.addAll(takens);
        Step taken = topic.deliver(T0.plusSeconds(8)).stream().filter(step -> !step.deferred().isEmpty())
                .findFirst().orElseThrow();
        assertThat(new String(topic.partition(2).log().get((int) taken.deferred().get(0).source().offset())
                .headers().lastValue(Growth.TAKEN).orElseThrow())).startsWith("from=0;");
        assertThat(((Verdict.Acquired) verdict(taken.deferred().get(0))).lease().owner()).isEqualTo("B");
    }

    @Test
    void aCommandSentOnIsNotStoredSoItsRetryIsDecidedWhereItBelongs() {
        topic.seal(3, T0);
        assertThat(verdict(send(0, TO_NEW, acquire("x", TO_NEW, "A", 30, 0), T0))).isEqualTo(new Verdict.Moved(2, 3));
        assertThat(verdict(send(0, TO_NEW, acquire("x", TO_NEW, "A", 30, 0), T0))).isEqualTo(new Verdict.Moved(2, 3));
        topic.deliver(T0);
        assertThat(verdict(send(2, TO_NEW, acquire("x", TO_NEW, "A", 30, 0), T0))).isInstanceOf(Verdict.Acquired.class);
    }

    @Test
    void carriesAndTakensSentAgainChangeNothingAndOnesForNoGrowthAreDeadLettered() {
        send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0);
        send(0, TO_NEW, acquire("b", TO_NEW, "B", 30, 60_000), T0);
        topic.seal(3, T0);
        List<Outbound.Transfer> sent = new ArrayList<>(topic.inFlight);
        topic.deliver(T0);
        PartitionPosition after = topic.partition(2).state().position();
        topic.inFlight.addAll(sent);
        assertThat(topic.deliver(T0.plusSeconds(1))).allSatisfy(step -> assertThat(step.answer()).isEmpty());
        assertThat(topic.partition(2).state().queues().queue(TO_NEW)).hasSize(1);
        assertThat(topic.partition(2).state().position().layout()).isEqualTo(after.layout());
        assertThat(topic.seal(2, 3, T0.plusSeconds(1))).as("a seal appended again is a repeat")
                .allSatisfy(step -> assertThat(step.answer()).isEmpty());

        RecordHeaders stray = new RecordHeaders();
        stray.add(Growth.TAKEN, Growth.takenHeader(5, 5, 3, 100));
        assertThat(topic.record(2, null, stray, T0.plusSeconds(1)).answer()).containsInstanceOf(Outbound.DeadLetter.class);
    }

    @Test
    void aCancellationFindsTheTokenOfAGrantMadeBeforeATakenRaisedThem() {
        for (int i = 0; i < 20; i++) {
            send(1, TO_OLD, status("pad-" + i, TO_OLD), T0);
        }
        topic.seal(3, T0);
        // Partition 0 awaits partition 1, whose tokens are far above its own: granted before the taken.
        Lease before = granted(send(0, STAYS, acquire("w", STAYS, "A", 30, 1000), T0));
        topic.deliver(T0.plusSeconds(1));
        assertThat(topic.partition(0).state().position().tokenBase()).as("raised by the taken").isPositive();
        assertThat(verdict(send(0, STAYS, release("c", STAYS, "A", ",\"cancels\":\"w\""), T0.plusSeconds(2))))
                .isInstanceOf(Verdict.Released.class);
        assertThat(topic.partition(0).state().holders(STAYS).liveAt(T0.plusSeconds(2))).isEmpty();
        assertThat(before.fencingToken()).isLessThan(topic.partition(0).state().position().tokenAt(0) + 100);
    }

    @Test
    void aQuarantinedPartitionIsSealedOnlyOnceItsQuarantineEnded() {
        Lease held = granted(send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0));
        PartitionState state = topic.partition(0).state();
        state.position(state.position().afterLoss(state.position().nextOffset() + 1));
        RecordHeaders headers = new RecordHeaders();
        headers.add(Growth.SEAL, Growth.sealHeader(2, 3));
        Step refused = topic.record(0, null, headers, T0.plusSeconds(1));
        assertThat(refused.answer()).containsInstanceOf(Outbound.DeadLetter.class);
        assertThat(((Outbound.DeadLetter) refused.answer().orElseThrow()).reason()).contains("quarantined");
        assertThat(state.holders(TO_NEW).leases()).as("nothing left").containsExactly(held);

        Instant over = T0.plusSeconds(1).plus(topic.settings.limits().maxTtl()).plusSeconds(1);
        Step sealed = topic.record(0, null, headers, over);
        assertThat(sealed.answer()).isEmpty();
        assertThat(sealed.transfers()).isNotEmpty();
    }

    @Test
    void aCarriedLeaseRunsWhatItHadLeftFromItsNewPartitionsTimeThoughThatIsAhead() {
        Lease held = granted(send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0));
        topic.seal(3, T0.plusSeconds(1));
        // Partition 2's time is a minute ahead of partition 0's when the lease arrives there.
        send(2, STAYS + "-x", status("ahead", STAYS + "-x"), T0.plusSeconds(61));
        topic.deliver(T0.plusSeconds(61));
        Verdict.Locked locked = (Verdict.Locked) verdict(send(2, TO_NEW, status("s", TO_NEW), T0.plusSeconds(62)));
        assertThat(locked.lease().fencingToken()).isEqualTo(held.fencingToken());
        assertThat(locked.lease().expiresAt()).as("29 s left at the seal, from partition 2's time")
                .isAfterOrEqualTo(T0.plusSeconds(61 + 29));
    }

    @Test
    void aGrowthsRecordsFetchedAgainAreAnsweredAsBeforeWithNothing() {
        send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0);
        topic.seal(3, T0.plusSeconds(1));
        topic.deliver(T0.plusSeconds(2));
        for (PartitionDriver partition : topic.partitions) {
            for (Inbound record : partition.log()) {
                Step again = partition.apply(record);
                if (record.headers().has(Growth.SEAL) || record.headers().has(Growth.CARRY)
                        || record.headers().has(Growth.TAKEN)) {
                    assertThat(again.answer()).as(record.position()).isEmpty();
                }
            }
        }
    }

    @Test
    void aTakenOrCarryOfAnEarlierGrowthChangesNothing() {
        send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0);
        topic.seal(3, T0.plusSeconds(1));
        topic.deliver(T0.plusSeconds(2));
        PartitionPosition before = topic.partition(2).state().position();
        RecordHeaders stale = new RecordHeaders();
        stale.add(Growth.TAKEN, Growth.takenHeader(0, 1, 2, 1_000_000));
        assertThat(topic.record(2, null, stale, T0.plusSeconds(3)).answer()).isEmpty();
        assertThat(topic.partition(2).state().position().tokenBase()).isEqualTo(before.tokenBase());
        assertThat(topic.partition(2).state().position().layout()).isEqualTo(before.layout());
    }

    @Test
    void aWaiterCarriedAgainAfterItsWaitEndedThereIsNotQueuedAgain() {
        send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0);
        send(0, TO_NEW, acquire("b", TO_NEW, "B", 30, 2_000), T0);
        topic.seal(3, T0.plusMillis(100));
        List<Outbound.Transfer> sent = new ArrayList<>(topic.inFlight);
        // The carries land, but not the takens yet; the wait ends on partition 2 meanwhile.
        topic.inFlight.removeIf(t -> t.header().equals(Growth.TAKEN));
        topic.deliver(T0.plusMillis(200));
        Step ended = send(2, STAYS + "-y", status("late", STAYS + "-y"), T0.plusSeconds(5));
        assertThat(ended.deferred()).hasSize(1);
        topic.inFlight.addAll(sent);
        topic.deliver(T0.plusSeconds(6));
        assertThat(topic.partition(2).state().queues().queue(TO_NEW)).isEmpty();
    }

    @Test
    void aRetryOfARequestDecidedBeforeTheSealGetsItsReplyOnTheNewPartition() {
        Step first = send(0, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0);
        byte[] reply = ((Outbound.ReplyRecord) first.answer().orElseThrow()).value();
        topic.seal(3, T0.plusSeconds(1));
        topic.deliver(T0.plusSeconds(2));
        Outbound again = send(2, TO_NEW, acquire("a", TO_NEW, "A", 30, 0), T0.plusSeconds(3)).answer().orElseThrow();
        assertThat(new String(((Outbound.ReplyRecord) again).value())).isEqualTo(new String(reply));
        assertThat(send(2, TO_NEW, acquire("a", TO_NEW, "B", 30, 0), T0.plusSeconds(3)).answer()
                .map(o -> new String(((Outbound.ReplyRecord) o).value())).orElseThrow())
                .as("the same ID for another command").contains("\"field\":\"request_id\"");
    }
}
