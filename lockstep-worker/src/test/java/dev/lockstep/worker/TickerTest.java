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
import java.util.Set;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * The ticker's rules on Kafka's MockProducer and a stub store: a tick to each partition of this
 * worker with time to keep, in the tick's shape, measured from the last one's acknowledgement, one
 * in flight at a time; none when the database does not answer; hand-overs lost appended again.
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

    /** The header of the {@code index}-th record sent, read as the state machine reads it. */
    private Tick.Read.Valid sentTick(int index) {
        ProducerRecord<byte[], byte[]> tick = producer.history().get(index);
        InboundHeaders headers = InboundHeaders.of(tick.headers());
        return (Tick.Read.Valid) Tick.read(tick.key(), tick.value(), headers.lastValue(Tick.HEADER).orElseThrow(),
                headers.count(Tick.HEADER));
    }

    @Test
    void aTickGoesToEachAssignedPartitionWithTimeToKeepInTheShapeTheStateMachineTakes() {
        assigned.assigned(List.of(0, 1));
        store.idle = Set.of(1);

        assertThat(ticker.tickNow()).isEqualTo(1);

        assertThat(producer.history()).singleElement().satisfies(tick -> {
            assertThat(tick.topic()).isEqualTo(MockPublishing.TOPICS.commands());
            assertThat(tick.partition()).as("partition 1 has nothing live; 2 is another worker's").isZero();
            assertThat(tick.key()).isNull();
            assertThat(tick.value()).isNull();
        });
        assertThat(sentTick(0).measured()).as("the first measures from nothing").isEmpty();
        producer.completeNext();
        assertThat(registry.get("lockstep.ticks").counter().count()).isEqualTo(1);
    }

    @Test
    void eachTickMeasuresFromTheAcknowledgementOfTheLastAndOneIsInFlightAtATime() {
        assigned.assigned(List.of(0));
        ticker.tickNow();
        clock.advance(Duration.ofMillis(40));
        producer.completeNext();
        long first = producer.history().size() - 1;

        clock.advance(Ticker.INTERVAL);
        assertThat(ticker.tickNow()).isOne();
        assertThat(sentTick(1).measured()).as("from the first's acknowledgement, on the monotonic clock")
                .contains(new Tick.Measured(first, Ticker.INTERVAL));

        clock.advance(Ticker.INTERVAL);
        assertThat(ticker.tickNow()).as("the second is not yet acknowledged").isZero();
        clock.advance(Ticker.RESEND_AFTER);
        assertThat(ticker.tickNow()).as("a send always ends: none goes beside it").isZero();
        assertThat(producer.history()).hasSize(2);
        producer.errorNext(new org.apache.kafka.common.errors.TimeoutException("expired"));
        assertThat(ticker.tickNow()).as("it failed: another goes").isOne();
        assertThat(sentTick(2).measured()).as("still from the last acknowledged")
                .map(Tick.Measured::prev).contains(first);
    }

    @Test
    void aPartitionThatHasNotAppliedTheLastTickGetsNoOtherForAWhile() {
        assigned.assigned(List.of(0));
        store.applied = Map.of(0, 0L);
        ticker.tickNow();
        producer.completeNext();

        clock.advance(Ticker.INTERVAL);
        assertThat(ticker.tickNow()).as("its database applies nothing: no stream of ticks").isZero();
        assertThat(producer.history()).hasSize(1);
        clock.advance(Ticker.RESEND_AFTER);
        assertThat(ticker.tickNow()).isOne();
        producer.completeNext();
        store.applied = Map.of(0, 1L);
        clock.advance(Ticker.INTERVAL);
        assertThat(ticker.tickNow()).as("behind, but applying: its time goes on").isOne();
        producer.completeNext();
        store.applied = Map.of(0, 3L);
        clock.advance(Ticker.INTERVAL);
        assertThat(ticker.tickNow()).as("applied again").isOne();
        assertThat(producer.history()).hasSize(4);
    }

    @Test
    void revokedPartitionsAndADatabaseThatDoesNotAnswerGetNoTick() {
        assigned.assigned(List.of(0, 1));
        assigned.revoked(List.of(0, 1));
        assertThat(ticker.tickNow()).isZero();

        assigned.assigned(List.of(0));
        store.down = true;
        assertThat(ticker.tickNow()).isZero();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void aHandOverDueIsAppendedAgainOnlyWhenItStaysDueAWhile() {
        logTimeIsTheClock();
        assigned.assigned(List.of(0));
        store.idle = Set.of(0);
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
