package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.T0;
import static dev.lockstep.engine.JobPartition.acquire;
import static dev.lockstep.engine.JobPartition.deferredGrants;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.Tick;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The driver appends what the worker appends, when its caller says: a step's hand-overs when they
 * land (or never, when lost), and as log time passes the ticker's ticks at the ends no record
 * showed and its hand-overs again after five seconds; over a log it appends nothing.
 */
class PartitionDriverTest {

    private final JobPartition job = new JobPartition(Duration.ZERO);
    private final PartitionDriver partition = job.driver;

    @Test
    void timePassingTicksAtEachEndNoRecordShowedInTheOrderTheyEnd() {
        partition.append("job", acquire("a", "holder", 3, 0), T0);
        partition.append("job", acquire("b", "waiter", 10, 5_000), T0.plusSeconds(1));

        List<Step> ticks = partition.passTime(T0.plusSeconds(20), Duration.ofMillis(250));

        assertThat(partition.log().subList(2, partition.log().size()))
                .extracting(record -> new String(record.headers().lastValue(Tick.HEADER).orElseThrow(),
                        StandardCharsets.UTF_8) + " at " + record.logAppendTime().orElseThrow())
                .as("the lease's end (the waiter takes over), then the waiter's lease's end, measured from the first")
                .containsExactly(T0.plusSeconds(3) + " at " + T0.plusMillis(3_250),
                        T0.plusMillis(13_250) + ";prev=2;elapsed_ms=10250 at " + T0.plusMillis(13_500));
        assertThat(deferredGrants(ticks.get(0))).extracting(Lease::owner).containsExactly("waiter");
        assertThat(partition.passTime(T0.plusSeconds(60))).as("nothing ends after").isEmpty();
    }

    @Test
    void anEndAtTheVeryInstantTimePassesToIsTickedThen() {
        partition.append("job", acquire("a", "holder", 3, 0), T0);

        assertThat(partition.passTime(T0.plusMillis(2_999))).isEmpty();
        assertThat(partition.passTime(T0.plusSeconds(3))).hasSize(1);
        assertThat(partition.state().position().clock()).isEqualTo(T0.plusSeconds(3));
    }

    @Test
    void handOversFlyUntilTheyLandAndThoseTheyAskForFollow() {
        semaphoreWithThreeWaiters();
        Step freed = partition.tick(T0.plusSeconds(31));
        assertThat(deferredGrants(freed)).extracting(Lease::owner).containsExactly("c");
        assertThat(partition.inFlight()).hasSize(2);
        long before = partition.nextOffset();

        List<Step> landed = partition.deliver(1, T0.plusSeconds(32));

        assertThat(deferredGrants(landed.get(0))).extracting(Lease::owner).containsExactly("d");
        assertThat(partition.log().get((int) before).headers().lastValue(HandOver.HEADER)).get()
                .extracting(value -> new String(value, StandardCharsets.UTF_8))
                .isEqualTo("lock.commands-0@" + (before - 1) + " 1/2");
        assertThat(partition.deliverAll(T0.plusSeconds(32))).hasSize(1);
        assertThat(partition.inFlight()).isEmpty();
        assertThat(partition.state().queues().queue("job")).isEmpty();
    }

    @Test
    void aLostHandOverIsAppendedAgainAloneFiveSecondsAfterItsWaiterWasDue() {
        semaphoreWithThreeWaiters();
        partition.tick(T0.plusSeconds(31));
        partition.lose();

        assertThat(partition.passTime(T0.plusMillis(35_999))).isEmpty();
        List<Step> again = partition.passTime(T0.plusSeconds(36));

        assertThat(again).hasSize(1);
        assertThat(deferredGrants(again.get(0))).extracting(Lease::owner).containsExactly("d");
        Inbound handOver = partition.log().get(partition.log().size() - 1);
        assertThat(handOver.logAppendTime()).contains(T0.plusSeconds(36));
        assertThat(new String(handOver.headers().lastValue(HandOver.HEADER).orElseThrow(), StandardCharsets.UTF_8))
                .as("a run of one, which asks for the next run").endsWith(" 1/1");
        assertThat(partition.inFlight()).as("the next waiter's").hasSize(1);
    }

    @Test
    void aReplayAppliesTheWorkersLogAndAppendsNothing() {
        semaphoreWithThreeWaiters();
        partition.tick(T0.plusSeconds(31));
        partition.deliverAll(T0.plusSeconds(31));
        PartitionState replayed = PartitionState.empty(PartitionPosition.START);
        replayed.forReplay();
        PartitionDriver replay = PartitionDriver.log(partition.machine(), replayed);
        List<Inbound> applied = new ArrayList<>();
        replay.observe((record, step) -> applied.add(record));

        partition.log().forEach(replay::apply);

        assertThat(applied).isEqualTo(partition.log());
        assertThat(replay.log()).isEmpty();
        assertThat(replay.inFlight()).isEmpty();
        assertThat(Checkpoint.of(replayed, partition.machine().settings()))
                .isEqualTo(Checkpoint.of(partition.state(), partition.machine().settings()));
        assertThatThrownBy(() -> replay.tick(T0)).isInstanceOf(IllegalStateException.class);
        Inbound unappended = new Inbound("lock.commands", 0, partition.nextOffset(), null, null, InboundHeaders.NONE,
                partition.log().get(0).logAppendTime());
        assertThatThrownBy(() -> partition.apply(unappended)).as("the worker's log gets its records by append")
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Three permits held until T0 + 30 s, three waiters. */
    private void semaphoreWithThreeWaiters() {
        for (String owner : List.of("a", "b", "x")) {
            partition.append("job", acquire("acq-" + owner, owner, 30, 0, ",\"limit\":3"), T0);
        }
        for (String owner : List.of("c", "d", "e")) {
            partition.append("job", acquire("acq-" + owner, owner, 30, 120_000, ",\"limit\":3"), T0);
        }
    }
}
