package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.Tick;
import dev.lockstep.store.DueHandOver;
import dev.lockstep.testclock.SetClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The ticker's rules on Kafka's MockProducer and a stub store: a tick to each partition of this
 * worker where a lease ended that no record has shown, in the tick's shape; the same end again
 * only after a while; none when the database does not answer.
 */
class TickerTest {

    private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");

    /** The wall clock, as the test sets it. */
    private final SetClock clock = new SetClock(T0);
    private final StubStore store = new StubStore();
    private final MockProducer<byte[], byte[]> producer = MockPublishing.producer();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final WorkerHealth health = new WorkerHealth(clock, Duration.ofSeconds(30), Duration.ofSeconds(10), store,
            MockPublishing.TOPICS.commands());
    private final LogTimes logTimes = new LogTimes(clock, this::nanos);
    private final AssignedPartitions assigned = new AssignedPartitions();
    private final Ticker ticker = new Ticker(store, producer, MockPublishing.TOPICS.commands(), assigned, clock,
            logTimes, new ClockWatch(logTimes, () -> Map.of(0, "1 (broker-1:9092)"), MockPublishing.TOPICS.commands(), clock,
                    registry, health), new WorkerMetrics(registry, clock));

    /** The monotonic clock: the test's clock, as long as the test does not set it back. */
    private long nanos() {
        return clock.instant().toEpochMilli() * 1_000_000L;
    }

    /** A record of partition 0 seen now, stamped now: the partition's log time is the test's clock. */
    private void logTimeIsTheClock() {
        logTimes.seen(0, clock.instant(), OptionalLong.empty(), nanos());
    }

    @Test
    void aTickGoesToEachAssignedPartitionWhereALeaseEndedUnshown() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0, 1));
        store.ending = Map.of(0, T0.minusMillis(10), 1, T0.plusSeconds(3), 2, T0.minusSeconds(1));

        assertThat(ticker.tickNow()).isEqualTo(1);

        assertThat(producer.history()).singleElement().satisfies(tick -> {
            assertThat(tick.topic()).isEqualTo(MockPublishing.TOPICS.commands());
            assertThat(tick.partition()).as("partition 1's lease ends later; 2 is another worker's").isZero();
            assertThat(tick.key()).isNull();
            assertThat(tick.value()).isNull();
            assertThat(new String(tick.headers().lastHeader(Tick.HEADER).value(), StandardCharsets.UTF_8))
                    .isEqualTo(T0.minusMillis(10).toString());
        });
        producer.completeNext();
        assertThat(registry.get("lockstep.ticks").counter().count()).isEqualTo(1);
    }

    @Test
    void theTickIsOneTheStateMachineTakesForATick() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0));
        store.ending = Map.of(0, T0);
        ticker.tickNow();

        ProducerRecord<byte[], byte[]> tick = producer.history().get(0);
        InboundHeaders headers = InboundHeaders.of(tick.headers());

        assertThat(Tick.malformed(tick.key(), tick.value(), headers.lastValue(Tick.HEADER).orElseThrow(),
                headers.count(Tick.HEADER))).isEmpty();
    }

    @Test
    void theSameEndIsTickedAgainOnlyAfterAWhileAndANewEndAtOnce() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0));
        store.ending = Map.of(0, T0);
        ticker.tickNow();

        clock.set(T0.plus(Ticker.INTERVAL));
        assertThat(ticker.tickNow()).as("its tick may still be on its way").isZero();
        clock.set(T0.plus(Ticker.RESEND_AFTER));
        assertThat(ticker.tickNow()).as("that tick was lost, or waits behind a backlog").isEqualTo(1);
        store.ending = Map.of(0, clock.instant());
        clock.advance(Ticker.INTERVAL);
        assertThat(ticker.tickNow()).as("the next lease's end").isEqualTo(1);
        assertThat(producer.history()).hasSize(3);
    }

    @Test
    void revokedPartitionsAndADatabaseThatDoesNotAnswerGetNoTick() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0, 1));
        assigned.revoked(List.of(1));
        store.ending = Map.of(1, T0);
        assertThat(ticker.tickNow()).isZero();

        store.ending = Map.of(0, T0);
        store.down = true;
        assertThat(ticker.tickNow()).isZero();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void aHandOverDueIsAppendedAgainOnlyWhenItStaysDueAWhile() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0));
        DueHandOver due = new DueHandOver(0, "job", 41);
        store.due = List.of(due, new DueHandOver(3, "other", 7));
        assertThat(ticker.tickNow()).as("the publisher's hand-over may be on its way").isZero();
        clock.set(T0.plus(Ticker.RESEND_AFTER).minusMillis(1));
        assertThat(ticker.tickNow()).isZero();
        clock.set(T0.plus(Ticker.RESEND_AFTER));
        assertThat(ticker.tickNow()).as("still due: the first was lost").isEqualTo(1);

        assertThat(producer.history()).singleElement().satisfies(record -> {
            assertThat(record.partition()).as("partition 3 is another worker's").isZero();
            assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("job");
            InboundHeaders headers = InboundHeaders.of(record.headers());
            assertThat(HandOver.read(record.key(), record.value(), headers.lastValue(HandOver.HEADER).orElseThrow(),
                    headers.count(HandOver.HEADER))).as("a hand-over the state machine takes")
                    .isEqualTo(new HandOver.Read.Resource("job", true));
            assertThat(new String(headers.lastValue(HandOver.HEADER).orElseThrow(), StandardCharsets.UTF_8))
                    .as("a run of one").isEqualTo(MockPublishing.TOPICS.commands() + "-0@41 1/1");
        });
        producer.completeNext();
        assertThat(registry.get("lockstep.hand.overs").counter().count()).isEqualTo(1);

        store.due = List.of(new DueHandOver(0, "job", 44));
        clock.advance(Ticker.RESEND_AFTER);
        assertThat(ticker.tickNow()).as("due after another record: the worker's own is on its way").isZero();
        store.due = List.of();
        clock.advance(Ticker.RESEND_AFTER);
        assertThat(ticker.tickNow()).isZero();
        assertThat(producer.history()).hasSize(1);
    }

    @Test
    void aLeaseEndsByItsPartitionsLogTimeNotByTheWorkersClock() {
        assigned.assigned(List.of(0, 1, 2));
        logTimes.seen(0, T0.plusSeconds(30), OptionalLong.empty(), nanos());
        store.ending = Map.of(0, T0.plusSeconds(29), 1, T0.plusSeconds(29));

        assertThat(ticker.tickNow()).as("the worker's clock is 30 s behind; partition 1 has shown nothing yet: "
                + "the latest log time seen anywhere").isEqualTo(2);
    }

    @Test
    void aLeaderWhoseClockIsBehindGetsItsTickWhenItsLogTimeReachesTheEnd() {
        logTimeIsTheClock();
        assigned.assigned(List.of(1));
        logTimes.seen(1, T0.minusSeconds(30), OptionalLong.empty(), nanos());
        store.ending = Map.of(1, T0.minusSeconds(1));
        assertThat(ticker.tickNow()).as("ended by the worker's clock, not by the partition's").isZero();

        clock.advance(Duration.ofSeconds(29));
        assertThat(ticker.tickNow()).isOne();
    }

    @Test
    void aWorkerThatHasSeenNoRecordTicksEachPartitionWithALeaseToLearnItsLogTime() {
        assigned.assigned(List.of(0, 1));
        store.ending = Map.of(0, T0.plusSeconds(3600), 1, T0.plusSeconds(7200));
        assertThat(ticker.tickNow()).isEqualTo(2);
        logTimeIsTheClock();
        clock.advance(Ticker.RESEND_AFTER);
        assertThat(ticker.tickNow()).as("now it knows: nothing has ended").isZero();
    }

    @Test
    void aRecordStampedOutsideTheBoundIsCountedAndToldOnceAMinuteNamingItsLeader() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0, 1));
        logTimes.seen(0, T0.plusSeconds(30), OptionalLong.empty(), nanos());
        logTimes.seen(0, T0.plusSeconds(31), OptionalLong.empty(), nanos());
        logTimes.seen(1, T0.minusSeconds(5), OptionalLong.of(nanos()), nanos());
        logTimes.seen(1, T0.minusSeconds(50), OptionalLong.empty(), nanos());
        ticker.tickNow();

        assertThat(health.ready().warnings()).anySatisfy(w -> assertThat(w).contains(
                MockPublishing.TOPICS.commands() + "-0", "31.0 s ahead", "2 such records",
                "leader is broker 1 (broker-1:9092)", "end early"))
                .anySatisfy(w -> assertThat(w).contains(MockPublishing.TOPICS.commands() + "-1",
                        "5.0 s before it sent it", "leader is broker unknown", "end late"))
                .as("a consumed record's log time may be old: it only shows a clock ahead").hasSize(2);
        assertThat(registry.get("lockstep.log.time.outside").tag("direction", "ahead")
                .tag("broker", "1 (broker-1:9092)").counter().count()).isEqualTo(2);
        assertThat(registry.get("lockstep.log.time.outside").tag("direction", "behind").counter().count()).isOne();
        assertThat(registry.get("lockstep.log.time.warnings").gauge().value()).isEqualTo(2);

        clock.advance(Duration.ofSeconds(59));
        logTimes.seen(0, clock.instant().plusSeconds(30), OptionalLong.empty(), nanos());
        ticker.tickNow();
        assertThat(registry.get("lockstep.log.time.outside").tag("direction", "ahead").counter().count())
                .isEqualTo(3);
        assertThat(health.ready().warnings()).as("told once a minute").hasSize(2);
        clock.advance(Duration.ofSeconds(1));
        logTimes.seen(0, clock.instant().plusSeconds(30), OptionalLong.empty(), nanos());
        ticker.tickNow();
        assertThat(health.ready().warnings()).hasSize(3);

        clock.advance(Duration.ofMinutes(10));
        ticker.tickNow();
        assertThat(health.ready().warnings()).as("ten minutes on").isEmpty();
        assertThat(registry.get("lockstep.log.time.warnings").gauge().value()).isZero();
    }
}
