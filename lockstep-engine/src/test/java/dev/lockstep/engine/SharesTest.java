package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.T0;
import static dev.lockstep.engine.JobPartition.deferredGrants;
import static dev.lockstep.engine.JobPartition.granted;
import static dev.lockstep.engine.JobPartition.verdict;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Semaphores and read-write locks in the log: up to the limit of shared holders, each its own
 * permit and lease; a full resource queues in order; a queued writer keeps later readers out; a
 * record that frees permits grants the first waiter, and a hand-over record each next one that
 * fits, in order, each grant with its own record's token.
 */
class SharesTest {

    private final JobPartition partition = new JobPartition(Duration.ofMillis(1));
    private final PartitionState state = partition.state;

    private Step send(String json) {
        return partition.send(json);
    }

    /** An acquire of {@code job}; {@code share} is its JSON fields for mode and limit, if any. */
    private static String acquire(String owner, String share, long waitMs) {
        return JobPartition.acquire("acq-" + owner, owner, 30, waitMs, share);
    }

    private static String release(String owner) {
        return JobPartition.release("rel-" + owner, owner);
    }

    @Test
    void aSemaphoreAdmitsItsLimitAndQueuesTheRestInOrder() {
        Lease a = granted(send(acquire("a", ",\"limit\":2", 0)));
        Lease b = granted(send(acquire("b", ",\"limit\":2", 0)));
        assertThat(List.of(a.permit(), b.permit())).containsExactly(0, 1);
        assertThat(a.fencingToken()).isLessThan(b.fencingToken());
        assertThat(a.share()).isEqualTo(Share.shared(2));
        assertThat(verdict(send(acquire("c", ",\"limit\":2", 0)))).isInstanceOf(Verdict.NotAcquired.class);
        assertThat(send(acquire("d", ",\"limit\":2", 60_000)).answer()).as("d waits").isEmpty();
        assertThat(send(acquire("e", ",\"limit\":2", 60_000)).answer()).as("e waits").isEmpty();

        Step release = send(release("a"));
        assertThat(deferredGrants(release)).as("one permit freed, one waiter granted").singleElement()
                .satisfies(d -> {
                    assertThat(d.owner()).isEqualTo("d");
                    assertThat(d.permit()).isZero();
                    assertThat(d.fencingToken()).isEqualTo(state.position().tokenAt(release.deferred().get(0).source()
                            .offset()));
                });
        assertThat(state.queues().queue("job")).extracting(Waiter::owner).containsExactly("e");
        assertThat(state.holders("job").leases()).extracting(Lease::owner).containsExactly("d", "b");
    }

    @Test
    void aLimitOtherThanTheHoldersOrTheWaitersIsInvalid() {
        send(acquire("a", ",\"limit\":1", 0));
        send(acquire("b", ",\"limit\":1", 60_000));
        Verdict otherThanWaiters = verdict(send(acquire("c", ",\"limit\":3", 60_000)));
        assertThat(otherThanWaiters).isInstanceOf(Verdict.Invalid.class);
        assertThat(((Verdict.Invalid) otherThanWaiters).problem().errors().get(0).field()).isEqualTo("limit");
        assertThat(state.queues().queue("job")).extracting(Waiter::owner).containsExactly("b");
    }

    @Test
    void aQueuedWriterKeepsLaterReadersOutAndTheReadersAfterItAreGrantedEachByARecordOfItsOwn() {
        Lease r1 = granted(send(acquire("r1", ",\"mode\":\"shared\"", 0)));
        granted(send(acquire("r2", ",\"mode\":\"shared\"", 0)));
        assertThat(r1.share()).isEqualTo(Share.shared(Share.MAX_LIMIT));
        assertThat(send(acquire("w", "", 60_000)).answer()).as("the writer waits for the readers").isEmpty();
        assertThat(send(acquire("r3", ",\"mode\":\"shared\"", 60_000)).answer())
                .as("a reader behind the writer waits, though readers hold").isEmpty();
        Verdict impatient = verdict(send(acquire("r4", ",\"mode\":\"shared\"", 0)));
        assertThat(impatient).as("nor does one that will not wait pass").isInstanceOf(Verdict.NotAcquired.class);
        assertThat(send(acquire("r5", ",\"mode\":\"shared\"", 60_000)).answer()).isEmpty();
        assertThat(send(acquire("r6", ",\"mode\":\"shared\"", 60_000)).answer()).isEmpty();

        assertThat(send(release("r1")).deferred()).as("r2 still reads").isEmpty();
        Step lastReader = send(release("r2"));
        assertThat(deferredGrants(lastReader)).extracting(Lease::owner).containsExactly("w");
        assertThat(lastReader.handOvers()).as("the readers wait for the writer").isEmpty();

        Step writerDone = send(release("w"));
        assertThat(deferredGrants(writerDone)).as("one grant per record: its token is the record's")
                .extracting(Lease::owner).containsExactly("r3");
        assertThat(writerDone.handOvers()).as("r5 and r6 are due: a run of two hand-overs is to be appended")
                .extracting(h -> h.resource() + " " + h.index() + "/" + h.count()).containsExactly("job 1/2", "job 2/2");
        Waiter r5 = state.queues().queue("job").get(0);
        assertThat(state.queues().due()).as("marked, so a lost hand-over is appended again")
                .containsEntry(r5.offset(), writerDone.deferred().get(0).source().offset());

        List<Step> handOvers = partition.handOvers();
        assertThat(handOvers).as("r5, then r6, each granted by a hand-over of the run; no more asked for")
                .hasSize(2).allSatisfy(step -> assertThat(step.handOvers()).isEmpty());
        List<Lease> readers = new ArrayList<>(deferredGrants(writerDone));
        handOvers.forEach(step -> readers.addAll(deferredGrants(step)));
        assertThat(readers).extracting(Lease::owner).containsExactly("r3", "r5", "r6");
        assertThat(readers).extracting(Lease::permit).containsExactly(0, 1, 2);
        assertThat(readers).extracting(Lease::fencingToken).as("every grant its own token, in queue order")
                .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
        assertThat(readers.get(2).fencingToken())
                .isEqualTo(state.position().tokenAt(handOvers.get(1).deferred().get(0).source().offset()));
        assertThat(state.queues().queue("job")).isEmpty();
    }

    @Test
    void aDueWaiterIsGrantedByTheNextRecordOfItsResourceWhenItsHandOverIsLost() {
        send(acquire("a", ",\"limit\":2", 0));
        send(acquire("b", ",\"limit\":2", 0));
        send(acquire("c", ",\"limit\":2", 60_000));
        send(acquire("d", ",\"limit\":2", 60_000));
        Step bothEnd = partition.tick(partition.time().plus(Duration.ofSeconds(31)));
        assertThat(deferredGrants(bothEnd)).extracting(Lease::owner).containsExactly("c");
        assertThat(bothEnd.handOvers()).hasSize(1);

        Step status = send("{\"request_id\":\"s\",\"type\":\"status\",\"resource\":\"job\"}");
        assertThat(deferredGrants(status)).as("granted at the status, after its reply was decided")
                .extracting(Lease::owner).containsExactly("d");
        assertThat(((Verdict.Locked) verdict(status)).waiters()).as("the status was decided first").isEqualTo(1);
        assertThat(status.handOvers()).isEmpty();

        Step late = partition.deliver();
        assertThat(late.all()).as("the hand-over that arrives after: nothing due, nothing published").isEmpty();
        assertThat(state.holders("job").leases()).extracting(Lease::owner).containsExactly("c", "d");
    }

    /** Only a run's last hand-over asks for the next run: the others' waiters are on their way. */
    @Test
    void roomThatGrowsDuringARunIsHandedOverByTheRunsLast() {
        for (String owner : List.of("a", "b", "c", "x")) {
            send(JobPartition.acquire("acq-" + owner, owner, owner.equals("x") ? 60 : 30, 0, ",\"limit\":4"));
        }
        for (String owner : List.of("d", "e", "f", "g", "h")) {
            send(acquire(owner, ",\"limit\":4", 300_000));
        }
        Step threeEnded = partition.tick(JobPartition.T0.plusSeconds(31));
        assertThat(deferredGrants(threeEnded)).extracting(Lease::owner).containsExactly("d");
        assertThat(threeEnded.handOvers()).extracting(h -> h.index() + "/" + h.count()).containsExactly("1/2", "2/2");

        partition.skipTo(JobPartition.T0.plusSeconds(61));
        Step notLast = partition.deliver();
        assertThat(deferredGrants(notLast)).extracting(Lease::owner).containsExactly("e");
        assertThat(notLast.handOvers()).as("x's lease ended: g and h are due now too, but the run's last asks")
                .isEmpty();
        assertThat(state.queues().due()).containsKey(state.queues().queue("job").get(0).offset());

        Step last = partition.deliver();
        assertThat(deferredGrants(last)).extracting(Lease::owner).containsExactly("f");
        assertThat(last.handOvers()).as("d's lease ended at this log time too: room for g and h")
                .extracting(h -> h.index() + "/" + h.count()).containsExactly("1/2", "2/2");
        List<Step> next = partition.handOvers();
        assertThat(next).extracting(step -> deferredGrants(step).get(0).owner()).containsExactly("g", "h");
        assertThat(state.queues().queue("job")).isEmpty();
    }

    @Test
    void aHandOverGrantsOnlyWhatTheRulesGrant() {
        send(acquire("a", "", 0));
        send(acquire("b", "", 60_000));
        Step forged = partition.handOver("job");
        assertThat(forged.all()).as("a holds: nothing granted, nothing published").isEmpty();
        assertThat(state.queues().queue("job")).extracting(Waiter::owner).containsExactly("b");
        assertThat(state.queues().due()).isEmpty();
    }

    @Test
    void eventsAndStatusSayTheShare() {
        Step first = send(acquire("a", ",\"limit\":3", 0));
        send(acquire("b", ",\"limit\":3", 0));
        LeaseEvent granted = EventCodec.decode(first.events().get(0).value());
        assertThat(granted.share()).isEqualTo(Share.shared(3));
        assertThat(granted.permit()).isZero();
        assertThat(first.events().get(0).entry().value()).contains("\"mode\":\"shared\",\"limit\":3,\"permit\":0");

        String status = "{\"request_id\":\"s\",\"type\":\"status\",\"resource\":\"job\",\"owner\":\"b\"}";
        Step asked = send(status);
        String json = new String(((Outbound.ReplyRecord) asked.answer().orElseThrow()).value(), StandardCharsets.UTF_8);
        assertThat(json).contains("\"owner\":\"b\"").contains("\"holders\":2").contains("\"listed\":[");
        Verdict.Locked locked = (Verdict.Locked) verdict(asked);
        assertThat(locked.holders()).extracting(Lease::owner).containsExactly("a", "b");
    }

    @Test
    void aLocksRepliesAndEventsReadAsTheyAlwaysDid() {
        Step granted = send(acquire("a", "", 0));
        String reply = new String(((Outbound.ReplyRecord) granted.answer().orElseThrow()).value(), StandardCharsets.UTF_8);
        assertThat(reply).doesNotContain("mode").doesNotContain("permit").doesNotContain("limit");
        assertThat(granted.events().get(0).entry().value()).doesNotContain("mode").doesNotContain("permit");
    }

    /**
     * An owner that waits twice is granted once; its second acquire's turn comes by the next
     * hand-over, and it is answered as that owner's acquire is: the same lease, extended.
     */
    @Test
    void anOwnerWaitingTwiceIsGrantedOnceAndItsSecondAcquireExtendsThatLease() {
        send(acquire("a", "", 0));
        assertThat(send(acquire("b", "", 60_000)).answer()).isEmpty();
        assertThat(send(acquire("b", "", 60_000).replace("acq-b", "acq-b-again")).answer()).isEmpty();
        send(acquire("c", "", 60_000));

        Step release = send(release("a"));
        assertThat(deferredGrants(release)).extracting(Lease::owner).containsExactly("b");
        assertThat(release.events().stream().map(e -> EventCodec.decode(e.value()).kind()))
                .containsExactly(LeaseEvent.Kind.RELEASED, LeaseEvent.Kind.GRANTED);
        assertThat(release.handOvers()).as("b's second acquire is decided by a record of its own").hasSize(1);

        Step turn = partition.deliver();
        assertThat(deferredGrants(turn)).singleElement().satisfies(extended -> {
            assertThat(extended.owner()).isEqualTo("b");
            assertThat(extended.fencingToken()).as("the same lease").isEqualTo(deferredGrants(release).get(0)
                    .fencingToken());
        });
        assertThat(turn.events().stream().map(e -> EventCodec.decode(e.value()).kind()))
                .containsExactly(LeaseEvent.Kind.EXTENDED);
        assertThat(state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("acq-c");
    }

    /**
     * A semaphore of two, full; owner A waits twice, B after it. X's release grants A's first
     * waiter; Y's frees the second permit: A's second acquire extends A's lease, and B is granted
     * the free permit right after, not left waiting beside it.
     */
    @Test
    void anOwnersSecondWaiterDoesNotStrandTheWaitersBehindItBesideAFreePermit() {
        String limit2 = ",\"limit\":2";
        partition.at(T0, JobPartition.acquire("x", "X", 60, 0, limit2));
        partition.at(T0, JobPartition.acquire("y", "Y", 60, 0, limit2));
        partition.at(T0.plusSeconds(1), JobPartition.acquire("a1", "A", 60, 60_000, limit2));
        partition.at(T0.plusSeconds(1), JobPartition.acquire("a2", "A", 60, 60_000, limit2));
        partition.at(T0.plusSeconds(1), JobPartition.acquire("b", "B", 60, 60_000, limit2));

        partition.at(T0.plusSeconds(2), JobPartition.release("rx", "X"));
        partition.skipTo(T0.plusSeconds(2));
        partition.handOvers();
        partition.at(T0.plusSeconds(3), JobPartition.release("ry", "Y"));
        partition.skipTo(T0.plusSeconds(3));
        partition.handOvers();

        assertThat(state.holders("job").liveAt(T0.plusSeconds(3))).extracting(Lease::owner)
                .containsExactlyInAnyOrder("A", "B");
        assertThat(state.queues().queue("job")).isEmpty();
    }

    /** The limit is checked against the holders whatever waits: an odd acquire never joins the queue. */
    @Test
    void aSharedAcquireNamingAnotherLimitThanTheHoldersIsInvalidThoughAWriterWaits() {
        granted(send(acquire("r1", ",\"limit\":4", 0)));
        assertThat(send(acquire("w", "", 60_000)).answer()).as("the writer waits").isEmpty();

        Verdict odd = verdict(send(acquire("odd", ",\"limit\":2", 60_000)));
        assertThat(odd).isInstanceOf(Verdict.Invalid.class);
        assertThat(((Verdict.Invalid) odd).problem().errors()).singleElement()
                .satisfies(error -> assertThat(error.field()).isEqualTo("limit"));
        assertThat(state.queues().queue("job")).extracting(Waiter::owner).containsExactly("w");
        assertThat(send(acquire("r2", ",\"limit\":4", 60_000)).answer()).as("a reader of the right limit waits")
                .isEmpty();
    }

    /** The first waiter's wait ends: the next is granted at that very record when there is room for it. */
    @Test
    void whenTheFirstWaitersWaitEndsTheNextIsGrantedIfThereIsRoom() {
        granted(send(acquire("r1", ",\"limit\":2", 0)));
        assertThat(partition.at(JobPartition.T0.plusSeconds(1), acquire("w", "", 2_000)).answer()).isEmpty();
        assertThat(partition.at(JobPartition.T0.plusSeconds(2), acquire("r2", ",\"limit\":2", 60_000)).answer())
                .as("behind the writer").isEmpty();

        Step waitEnds = partition.tick(JobPartition.T0.plusSeconds(3));

        assertThat(waitEnds.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("acq-w", "acq-r2");
        assertThat(verdict(waitEnds.deferred().get(1))).isInstanceOfSatisfying(Verdict.Acquired.class,
                grant -> assertThat(grant.lease().owner()).isEqualTo("r2"));
        assertThat(state.queues().queue("job")).isEmpty();
    }
}
