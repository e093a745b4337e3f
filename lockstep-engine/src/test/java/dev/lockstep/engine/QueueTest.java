package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.T0;
import static dev.lockstep.engine.JobPartition.acquire;
import static dev.lockstep.engine.JobPartition.cancel;
import static dev.lockstep.engine.JobPartition.events;
import static dev.lockstep.engine.JobPartition.release;
import static dev.lockstep.engine.JobPartition.verdict;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/**
 * Fair waiting, decided in the log: an acquire that waits joins its resource's queue and gets one
 * reply, when its turn comes (granted at the record that freed the resource, with that record's
 * token) or when its wait ends; a retry while it waits gets nothing more; a cancellation takes it
 * out; a full queue refuses at once; a record fetched again publishes the same replies again.
 */
class QueueTest {

    private final JobPartition partition = new JobPartition(Duration.ZERO);
    private final PartitionState state = partition.state;

    private Step at(Instant when, String json) {
        return partition.at(when, json);
    }

    private Step send(String json) {
        return partition.send(json);
    }

    private Step tick(Instant when) {
        return partition.tick(when);
    }

    @Test
    void waitersAreGrantedInLogOrderEachAtTheRecordThatFreedTheResource() {
        at(T0, acquire("a", "holder", 30, 0));
        Step queuedB = at(T0.plusSeconds(1), acquire("b", "second", 30, 60_000));
        Step queuedC = at(T0.plusSeconds(2), acquire("c", "third", 30, 60_000));

        assertThat(queuedB.answer()).as("no reply while it waits").isEmpty();
        assertThat(events(queuedB)).extracting(LeaseEvent::kind).containsExactly(LeaseEvent.Kind.QUEUED);
        assertThat(state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("b", "c");
        assertThat(queuedC.answer()).isEmpty();

        long releaseOffset = partition.nextOffset();
        Step released = at(T0.plusSeconds(5), release("r", "holder"));

        assertThat(released.answer()).get().satisfies(own ->
                assertThat(verdict((Outbound.ReplyRecord) own)).isEqualTo(new Verdict.Released()));
        assertThat(released.deferred()).singleElement().satisfies(reply -> {
            assertThat(reply.requestId()).isEqualTo("b");
            assertThat(reply.source().offset()).as("published with the release").isEqualTo(releaseOffset);
            Verdict.Acquired granted = (Verdict.Acquired) verdict(reply);
            assertThat(granted.lease().owner()).isEqualTo("second");
            assertThat(granted.lease().fencingToken()).as("the releasing record's token")
                    .isEqualTo(state.position().tokenAt(releaseOffset));
            assertThat(granted.lease().acquiredAt()).isEqualTo(T0.plusSeconds(5));
            assertThat(granted.lease().expiresAt()).isEqualTo(T0.plusSeconds(35));
            assertThat(granted.waited()).as("from its own record to the grant, in log time")
                    .contains(Duration.ofSeconds(4));
        });
        assertThat(events(released)).extracting(LeaseEvent::kind)
                .containsExactly(LeaseEvent.Kind.RELEASED, LeaseEvent.Kind.GRANTED);
        assertThat(events(released).get(1).waited()).contains(Duration.ofSeconds(4));
        assertThat(events(released).get(1).requestId()).as("the waiting acquire's").contains("b");
        assertThat(state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("c");

        Step next = at(T0.plusSeconds(6), release("r2", "second"));
        assertThat(next.deferred()).singleElement().satisfies(reply -> assertThat(reply.requestId()).isEqualTo("c"));
    }

    @Test
    void aLeaseThatEndsGoesToTheFirstWaiterAtTheRecordThatShowsTheEnd() {
        at(T0, acquire("a", "holder", 2, 0));
        at(T0.plusSeconds(1), acquire("b", "next", 10, 30_000));

        Step shown = tick(T0.plusMillis(2_250));

        assertThat(events(shown)).extracting(LeaseEvent::kind)
                .containsExactly(LeaseEvent.Kind.EXPIRED, LeaseEvent.Kind.TAKEN_OVER);
        assertThat(shown.deferred()).singleElement().satisfies(reply -> {
            assertThat(reply.requestId()).isEqualTo("b");
            assertThat(((Verdict.Acquired) verdict(reply)).lease().acquiredAt()).isEqualTo(T0.plusMillis(2_250));
        });
        assertThat(shown.answer()).as("the tick itself is not answered").isEmpty();
    }

    @Test
    void aNewcomerAtTheRecordThatFreesTheResourceDoesNotPassTheWaiters() {
        at(T0, acquire("a", "holder", 2, 0));
        at(T0.plusSeconds(1), acquire("b", "waiter", 10, 30_000));

        Step newcomer = at(T0.plusSeconds(3), acquire("n", "newcomer", 10, 0));

        assertThat(verdict((Outbound.ReplyRecord) newcomer.answer().orElseThrow()))
                .as("told how long the waiter's lease will hold").isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(10)));
        assertThat(newcomer.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("b");
        assertThat(state.lease("job")).get().extracting(lease -> lease.owner()).isEqualTo("waiter");
    }

    @Test
    void oneRecordGrantsAResourceOnceWhateverItsOwnCommandDoes() {
        at(T0, acquire("a", "holder", 2, 0));
        at(T0.plusSeconds(1), acquire("b", "first", 10, 30_000));
        at(T0.plusSeconds(1), acquire("c", "second", 10, 30_000));

        // The holder's lease ended before this record; its own command is the first waiter's release
        // (it holds nothing yet), so the resource is handed over once, after it.
        Step step = at(T0.plusSeconds(3), release("r", "first"));

        assertThat(verdict((Outbound.ReplyRecord) step.answer().orElseThrow())).isEqualTo(new Verdict.NotFound());
        assertThat(step.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("b");
        assertThat(events(step)).extracting(LeaseEvent::kind)
                .containsExactly(LeaseEvent.Kind.EXPIRED, LeaseEvent.Kind.TAKEN_OVER);
        assertThat(state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("c");
    }

    @Test
    void aWaitThatEndsFirstIsAnsweredWaitExpiredAndSkipped() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusSeconds(1), acquire("b", "impatient", 30, 2_000));
        at(T0.plusSeconds(2), acquire("c", "patient", 30, 60_000));

        Step shown = tick(T0.plusSeconds(4));

        assertThat(shown.deferred()).singleElement().satisfies(reply -> {
            assertThat(reply.requestId()).isEqualTo("b");
            assertThat(verdict(reply)).isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(26),
                    Optional.of(WaitEnd.WAIT_EXPIRED)));
        });
        assertThat(events(shown)).singleElement().satisfies(event -> {
            assertThat(event.kind()).isEqualTo(LeaseEvent.Kind.WAIT_EXPIRED);
            assertThat(event.at()).as("the instant the wait ended").isEqualTo(T0.plusSeconds(3));
            assertThat(event.requestId()).contains("b");
        });
        Step released = at(T0.plusSeconds(5), release("r", "holder"));
        assertThat(released.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("c");
    }

    @Test
    void aRetryWhileWaitingGetsNothingMoreAndAfterItsAnswerTheSameReply() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusSeconds(1), acquire("b", "next", 30, 60_000));

        Step retried = at(T0.plusSeconds(2), acquire("b", "next", 30, 60_000));
        Step reused = at(T0.plusSeconds(2), acquire("b", "other", 30, 60_000));
        Step released = at(T0.plusSeconds(3), release("r", "holder"));
        Step afterwards = at(T0.plusSeconds(4), acquire("b", "next", 30, 60_000));

        assertThat(retried.answer()).isEmpty();
        assertThat(retried.events()).as("it does not join twice").isEmpty();
        assertThat(verdict((Outbound.ReplyRecord) reused.answer().orElseThrow())).isInstanceOf(Verdict.Invalid.class);
        assertThat(((Outbound.ReplyRecord) afterwards.answer().orElseThrow()).value())
                .isEqualTo(released.deferred().get(0).value());
    }

    /** A retry of a waiting acquire that lands on the very record that ends its wait: answered once, the same way. */
    @Test
    void aRetryAtTheRecordThatEndsTheWaitIsTheSameAnswerNotANewWait() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusSeconds(1), acquire("b", "impatient", 30, 1_000));

        Step retry = at(T0.plusSeconds(3), acquire("b", "impatient", 30, 1_000));

        assertThat(retry.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("b");
        assertThat(retry.answer()).get().satisfies(own -> assertThat(((Outbound.ReplyRecord) own).value())
                .isEqualTo(retry.deferred().get(0).value()));
        assertThat(state.queues().queue("job")).as("it does not wait again").isEmpty();
        assertThat(at(T0.plusSeconds(10), "{\"request_id\":\"s\",\"type\":\"status\",\"resource\":\"job\"}")
                .deferred()).as("and is never answered again").isEmpty();
    }

    @Test
    void aCancelledWaiterLeavesTheQueueAnsweredAndOnlyItsOwnerMayCancelIt() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusSeconds(1), acquire("b", "gives-up", 30, 60_000));

        Step forged = at(T0.plusSeconds(2), cancel("x", "someone-else", "b"));
        Step cancelled = at(T0.plusSeconds(2), cancel("c", "gives-up", "b"));

        assertThat(verdict((Outbound.ReplyRecord) forged.answer().orElseThrow())).isEqualTo(new Verdict.Forbidden());
        assertThat(verdict((Outbound.ReplyRecord) cancelled.answer().orElseThrow())).isEqualTo(new Verdict.NotFound());
        assertThat(cancelled.deferred()).singleElement().satisfies(reply -> assertThat(verdict(reply))
                .isEqualTo(new Verdict.NotAcquired(Duration.ofSeconds(28), Optional.of(WaitEnd.CANCELLED))));
        assertThat(events(cancelled)).extracting(LeaseEvent::kind).containsExactly(LeaseEvent.Kind.CANCELLED);
        assertThat(state.queues().queue("job")).isEmpty();
        assertThat(at(T0.plusSeconds(3), release("r", "holder")).deferred()).isEmpty();
    }

    @Test
    void aStatusSaysHowManyWait() {
        at(T0, acquire("a", "holder", 30, 0));
        Step alone = at(T0.plusMillis(1), "{\"request_id\":\"s1\",\"type\":\"status\",\"resource\":\"job\"}");
        at(T0.plusMillis(2), acquire("b", "x", 30, 60_000));
        at(T0.plusMillis(3), acquire("c", "y", 30, 60_000));

        Step two = at(T0.plusMillis(4), "{\"request_id\":\"s2\",\"type\":\"status\",\"resource\":\"job\"}");

        assertThat(new String(((Outbound.ReplyRecord) alone.answer().orElseThrow()).value(), StandardCharsets.UTF_8))
                .as("as it always read").doesNotContain("waiters");
        assertThat(verdict((Outbound.ReplyRecord) two.answer().orElseThrow())).isInstanceOfSatisfying(
                Verdict.Locked.class, locked -> assertThat(locked.waiters()).isEqualTo(2));
    }

    @Test
    void aStatusNamingAWaitersOwnerSaysWhereItStands() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusMillis(1), acquire("b", "x", 30, 60_000));
        at(T0.plusMillis(2), acquire("c", "y", 30, 60_000));

        assertThat(position(status("s1", "y"))).as("behind x").hasValue(2);
        assertThat(position(status("s2", "x"))).hasValue(1);
        assertThat(position(status("s3", "holder"))).as("the holder does not wait").isEmpty();
        assertThat(position(status("s4", "nobody"))).isEmpty();
        at(T0.plusMillis(3), release("r", "holder"));
        assertThat(position(status("s5", "y"))).as("x was granted it").hasValue(1);
        Step retried = status("s1", "y");
        assertThat(position(retried)).as("a retry gets the stored reply").hasValue(2);
        assertThat(new String(((Outbound.ReplyRecord) status("s1", "x").answer().orElseThrow()).value(),
                StandardCharsets.UTF_8)).as("another owner under the same request ID").contains("\"invalid\"");
    }

    private Step status(String id, String owner) {
        return at(partition.time().plusMillis(1), "{\"request_id\":\"" + id + "\",\"type\":\"status\",\"resource\":\"job\","
                + "\"owner\":\"" + owner + "\"}");
    }

    private static OptionalInt position(Step step) {
        return ((Verdict.Locked) verdict((Outbound.ReplyRecord) step.answer().orElseThrow())).position();
    }

    @Test
    void theHolderReacquiringAndAFreeResourceAreAnsweredAtOnce() {
        Step free = at(T0, acquire("a", "holder", 30, 5_000));
        Step again = at(T0.plusSeconds(1), acquire("a2", "holder", 30, 5_000));

        assertThat(verdict((Outbound.ReplyRecord) free.answer().orElseThrow())).isInstanceOf(Verdict.Acquired.class);
        assertThat(verdict((Outbound.ReplyRecord) again.answer().orElseThrow())).isInstanceOf(Verdict.Acquired.class);
        assertThat(state.queues().queue("job")).isEmpty();
    }

    @Test
    void aFullQueueRefusesAtOnce() {
        at(T0, acquire("a", "holder", 30, 0));
        for (int i = 0; i < Limits.MAX_WAITERS; i++) {
            assertThat(at(T0.plusMillis(1), acquire("w" + i, "w" + i, 30, 60_000)).answer()).isEmpty();
        }

        Step refused = at(T0.plusMillis(2), acquire("late", "late", 30, 60_000));

        assertThat(verdict((Outbound.ReplyRecord) refused.answer().orElseThrow())).isInstanceOfSatisfying(
                Verdict.NotAcquired.class, no -> assertThat(no.reason()).contains(WaitEnd.QUEUE_FULL));
    }

    @Test
    void aRecordFetchedAgainPublishesTheSameRepliesAgainAndTheQueuedAcquireNone() {
        at(T0, acquire("a", "holder", 30, 0));
        long queuedAt = partition.nextOffset();
        at(T0.plusSeconds(1), acquire("b", "next", 30, 60_000));
        Inbound queued = partition.last();
        Step first = at(T0.plusSeconds(2), release("r", "holder"));
        Inbound release = partition.last();

        Step queuedAgain = partition.driver.apply(queued);
        Step releaseAgain = partition.driver.apply(release);

        assertThat(queuedAgain.answer()).as("the acquire at %d got its reply from the release", queuedAt).isEmpty();
        assertThat(releaseAgain.deferred()).extracting(Outbound.ReplyRecord::value)
                .containsExactlyElementsOf(first.deferred().stream().map(Outbound.ReplyRecord::value).toList());
        assertThat(releaseAgain.events()).extracting(Outbound.Event::entry)
                .containsExactlyElementsOf(first.events().stream().map(Outbound.Event::entry).toList());
    }

    /** A request ID reused while its acquire waits is invalid, fetched again too: that reply is not lost with a crash. */
    @Test
    void aReusedRequestIdWhileItsAcquireWaitsIsInvalidAgainWhenFetchedAgain() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusSeconds(1), acquire("b", "next", 30, 60_000));
        Step reused = at(T0.plusSeconds(2), acquire("b", "next", 10, 60_000));
        assertThat(verdict(reused)).isInstanceOf(Verdict.Invalid.class);

        Step again = partition.driver.apply(partition.last());

        assertThat(again.answer()).get().extracting(out -> ((Outbound.ReplyRecord) out).value())
                .isEqualTo(((Outbound.ReplyRecord) reused.answer().orElseThrow()).value());
    }

    /** A retry while its acquire waited got nothing; fetched again after the grant, it gets nothing either. */
    @Test
    void aRetryWhileWaitingFetchedAgainAfterTheGrantPublishesNothing() {
        at(T0, acquire("a", "holder", 30, 0));
        at(T0.plusSeconds(1), acquire("b", "next", 30, 60_000));
        assertThat(at(T0.plusSeconds(2), acquire("b", "next", 30, 60_000)).answer()).as("a retry while it waits").isEmpty();
        Inbound retry = partition.last();
        assertThat(at(T0.plusSeconds(3), release("r", "holder")).deferred()).hasSize(1);

        assertThat(partition.driver.apply(retry).all()).isEmpty();
    }

    /** A retry at the very record that grants its acquire got no answer of its own, fetched again neither. */
    @Test
    void aRetryAtTheRecordThatGrantsItsAcquireGetsNoAnswerOfItsOwnFetchedAgainToo() {
        at(T0, acquire("a", "holder", 5, 0));
        at(T0.plusSeconds(2), acquire("b", "next", 1, 4_000));
        Step granting = at(T0.plusSeconds(5), acquire("b", "next", 1, 4_000));
        assertThat(granting.answer()).isEmpty();
        assertThat(granting.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("b");

        Step again = partition.driver.apply(partition.last());

        assertThat(again.answer()).isEmpty();
        assertThat(again.deferred()).extracting(Outbound.ReplyRecord::value)
                .containsExactlyElementsOf(granting.deferred().stream().map(Outbound.ReplyRecord::value).toList());
    }

    @Test
    void aReplayMakesTheSameRepliesAndEvents() {
        PartitionState replayed = PartitionState.empty(PartitionPosition.START);
        replayed.forReplay();
        PartitionDriver replay = PartitionDriver.log(partition.machine, replayed);
        List<String> commands = List.of(acquire("a", "h", 2, 0), acquire("b", "x", 5, 10_000),
                acquire("c", "y", 5, 1_000), cancel("d", "x", "b"), acquire("e", "z", 5, 20_000));
        for (int i = 0; i < 8; i++) {
            Instant when = T0.plusMillis(700L * i);
            Step worker = i < commands.size() ? at(when, commands.get(i)) : tick(when);
            assertThat(replay.apply(partition.last()).all()).usingElementComparator((x, y) -> text(x).compareTo(text(y)))
                    .containsExactlyElementsOf(worker.all());
        }
        assertThat(state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("e");
    }

    private static String text(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            return reply.requestId() + new String(reply.value(), StandardCharsets.UTF_8);
        } else if (out instanceof Outbound.Event event) {
            return event.entry().value();
        }
        return out.toString();
    }

    /**
     * Lost records may have granted leases nobody knows of: until the quarantine ends no waiter is
     * granted either; one still waiting then is granted by the record that ends it.
     */
    @Test
    void noWaiterIsGrantedDuringAQuarantineAndOneStillWaitingIsGrantedWhenItEnds() {
        JobPartition shortTtls = new JobPartition(Duration.ZERO, new Limits(Duration.ofSeconds(60), 16 * 1024));
        shortTtls.at(T0, acquire("a", "holder", 5, 0));
        assertThat(shortTtls.at(T0.plusSeconds(1), acquire("b", "waiter", 30, 300_000)).answer()).isEmpty();
        shortTtls.lose(3);

        Step first = shortTtls.at(T0.plusSeconds(6), "{\"request_id\":\"s\",\"type\":\"status\",\"resource\":\"job\"}");
        assertThat(first.deferred()).as("the holder's lease ended, but the partition is quarantined").isEmpty();
        assertThat(shortTtls.state.queues().queue("job")).extracting(Waiter::requestId).containsExactly("b");
        assertThat(shortTtls.tick(T0.plusSeconds(30)).deferred()).isEmpty();

        Step ends = shortTtls.tick(T0.plusSeconds(66));
        assertThat(shortTtls.state.position().quarantine()).isEmpty();
        assertThat(ends.deferred()).singleElement().satisfies(reply -> {
            assertThat(reply.requestId()).isEqualTo("b");
            assertThat(verdict(reply)).isInstanceOf(Verdict.Acquired.class);
        });
    }
}
