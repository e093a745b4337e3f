package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.Tick;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * Time kept at the worker's ticks ({@link Timekeeping.Anchored}): the broker's clock may jump, the
 * worker measures real time, and a lease ends no sooner than its TTL of real time (docs/protocol.md, "Time").
 * Here "real" is the worker's measure; each tick's log-append time is what a skewed leader stamps.
 */
class AnchoredTimeTest {

    private static final Instant T0 = Instant.parse("2026-12-07T10:00:00Z");
    private static final Duration SLACK = Timekeeping.DEFAULT_SLACK;
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofMinutes(10),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1, new Timekeeping.Anchored(SLACK));

    private final PartitionState state = PartitionState.empty(PartitionPosition.START);
    private final PartitionDriver partition = PartitionDriver.worker(new PartitionMachine(SETTINGS), state,
            "lock.commands", 0);
    private long ownTick = -1;

    /** A tick the worker measured {@code elapsed} after its last one's acknowledgement, stamped {@code logTime}. */
    private Step tick(Instant logTime, Duration elapsed) {
        Optional<Tick.Measured> measured = ownTick < 0 ? Optional.empty() : Optional.of(new Tick.Measured(ownTick,
                elapsed));
        RecordHeaders headers = new RecordHeaders();
        headers.add(Tick.HEADER, Tick.headerValue(logTime, measured));
        ownTick = partition.nextOffset();
        return partition.append(null, null, InboundHeaders.of(headers), Optional.of(logTime));
    }

    /**
     * Ticks every 250 ms of real time from {@code from} for {@code duration}, stamped by a leader
     * whose clock is {@code skew} off from {@code stepAt} on; the real instant of the first expiry.
     */
    private Optional<Duration> tickUntilExpiry(Instant from, Duration duration, Duration skew, Duration stepAt) {
        for (Duration real = Duration.ofMillis(250); real.compareTo(duration) <= 0; real = real.plusMillis(250)) {
            Instant stamped = from.plus(real).plus(real.compareTo(stepAt) >= 0 ? skew : Duration.ZERO);
            Step step = tick(stamped, Duration.ofMillis(250));
            if (step.events().stream().anyMatch(e -> EventCodec.decode(e.value()).kind() == LeaseEvent.Kind.EXPIRED)) {
                return Optional.of(real);
            }
        }
        return Optional.empty();
    }

    /** Two ticks 250 ms apart, then the holder's lease of {@code ttlSeconds}, between ticks. */
    private void held(int ttlSeconds) {
        tick(T0, Duration.ZERO);
        tick(T0.plusMillis(250), Duration.ofMillis(250));
        acquireAt("a", "holder", ttlSeconds, T0.plusMillis(300));
    }

    private Step acquireAt(String id, String owner, int ttlSeconds, Instant at) {
        return partition.append("job", acquire(id, owner, ttlSeconds, 0), at);
    }

    /** A 10 s lease taken, and ticks under a leader whose clock is {@code skew} off from 2 s on: the real time to its expiry. */
    private Optional<Duration> leaseUnderALeaderSkewed(Duration skew) {
        held(10);
        return tickUntilExpiry(T0.plusMillis(250), Duration.ofSeconds(60), skew, Duration.ofSeconds(2));
    }

    @Test
    void aLeaderWhoseClockJumpsThirtySecondsAheadEndsNoLeaseEarly() {
        assertThat(leaseUnderALeaderSkewed(Duration.ofSeconds(30)))
                .as("the lease ends after its 10 s of real time, plus at most the slack and a tick")
                .hasValueSatisfying(real -> assertThat(real).isBetween(Duration.ofMillis(9_750),
                        Duration.ofMillis(10_500)));
    }

    @Test
    void aLeaderWhoseClockStepsThirtySecondsBackEndsTheLeaseOnTimeNotThirtySecondsLate() {
        assertThat(leaseUnderALeaderSkewed(Duration.ofSeconds(-30)))
                .as("one tick's time lost where the clock stepped back, no more")
                .hasValueSatisfying(real -> assertThat(real).isBetween(Duration.ofMillis(9_750),
                        Duration.ofMillis(10_750)));
    }

    @Test
    void ticksThatClaimMoreTimeThanTheBrokerStampedMoveTimeNoFurtherThanTheBroker() {
        held(10);
        tick(T0.plusMillis(500), Duration.ofMillis(250));
        Instant before = state.position().clock();

        for (int i = 0; i < 100; i++) {
            tick(T0.plusMillis(500), Duration.ofHours(1));
        }

        assertThat(state.position().clock()).as("a hundred forged ticks at one log time move nothing")
                .isEqualTo(before);
        assertThat(state.lease("job")).get().matches(lease -> lease.isLiveAt(state.position().clock()));
    }

    @Test
    void aRecordBetweenTicksIsDatedTheSlackAfterTheClockAndTheNextTickMovesTimeByTheSlackAtMost() {
        held(60);
        Instant clock = state.position().clock();

        Step granted = acquireAt("b", "holder", 10, T0.plusSeconds(5));
        tick(T0.plusSeconds(6), Duration.ofMillis(5_750));

        assertThat(((Verdict.Acquired) JobPartition.verdict(granted.answer().map(Outbound.ReplyRecord.class::cast)
                .orElseThrow())).lease().expiresAt()).isEqualTo(clock.plus(SLACK).plusSeconds(10));
        assertThat(state.position().clock()).as("records came between the ticks: the slack, not 5.75 s")
                .isEqualTo(clock.plus(SLACK));
    }

    @Test
    void aTickOfAnotherWorkerOrOneMeasuredFromAnotherTickMovesTimeNotAtAll() {
        held(10);
        Instant clock = state.position().clock();
        long mine = ownTick;
        ownTick = -1;

        tick(T0.plusSeconds(20), Duration.ZERO);
        assertThat(state.position().clock()).as("a new worker's first tick").isEqualTo(clock);
        ownTick = mine;
        tick(T0.plusSeconds(21), Duration.ofSeconds(20));
        assertThat(state.position().clock()).as("a tick measured from one that is no longer the last").isEqualTo(clock);

        tick(T0.plusMillis(21_250), Duration.ofMillis(250));
        assertThat(state.position().clock()).as("the next, measured from the last, moves it")
                .isEqualTo(clock.plusMillis(250));
        assertThat(state.lease("job")).get().matches(lease -> lease.isLiveAt(state.position().clock()));
    }

    @Test
    void withNothingLiveTimeCatchesUpWithTheLogAndAWaiterIsNeverToldItWaitedLongerThanItDid() {
        tick(T0, Duration.ZERO);
        acquireAt("a", "holder", 1, T0.plusMillis(10));
        for (int i = 1; i <= 12; i++) {
            tick(T0.plusMillis(10 + 250L * i), Duration.ofMillis(250));
        }
        assertThat(state.lease("job")).as("ended").get()
                .matches(lease -> !lease.isLiveAt(state.position().clock()));

        acquireAt("b", "other", 5, T0.plusSeconds(100));
        assertThat(state.position().clock()).as("nothing was live: the clock moved to the record's log time")
                .isEqualTo(T0.plusSeconds(100));
        Step queued = partition.append("job", acquire("c", "third", 5, 60_000), T0.plusSeconds(100));
        assertThat(queued.answer()).isEmpty();
        List<Step> ticks = new java.util.ArrayList<>();
        for (int i = 1; i <= 30; i++) {
            ticks.add(tick(T0.plusMillis(100_000 + 250L * i), Duration.ofMillis(250)));
        }
        Verdict.Acquired handed = ticks.stream().flatMap(step -> step.deferred().stream()).map(JobPartition::verdict)
                .map(Verdict.Acquired.class::cast).findFirst().orElseThrow();
        assertThat(handed.waited()).get().matches(waited -> waited.compareTo(Duration.ofSeconds(5)) <= 0,
                "no more than the 5 s to 5.5 s it waited in real time");
    }

    @Test
    void aPartitionWhoseLiveUntilIsUnknownWaitsTheLongestTtlAndWaitBeforeTheClockMayJump() {
        PartitionState legacy = PartitionState.empty(new PartitionPosition(7, T0, 0, Optional.empty(),
                Optional.empty(), Optional.empty()));
        PartitionDriver old = PartitionDriver.worker(new PartitionMachine(SETTINGS), legacy, "lock.commands", 0);

        old.append("job", acquire("a", "holder", 5, 0), T0.plusSeconds(3_600));

        assertThat(legacy.position().clock()).as("what was dated before may still be live: no jump").isEqualTo(T0);
        assertThat(legacy.position().liveUntil()).contains(T0.plus(Limits.DEFAULT_MAX_TTL).plus(Limits.MAX_WAIT));
    }

    @Test
    void settingsRecordedBeforeTimeWasAnchoredKeepLogTimeAndAnchoredOnesReadBack() {
        String old = new EngineSettings(Limits.defaults(), Duration.ofMinutes(10),
                new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1).canonical().replace("time=log\n", "");

        assertThat(EngineSettings.parse(old).timekeeping()).isInstanceOf(Timekeeping.LogAppend.class);
        assertThat(EngineSettings.parse(SETTINGS.canonical())).isEqualTo(SETTINGS);
        assertThat(SETTINGS.canonical()).contains("time=anchored\ntime_slack_ms=500\n");
    }
}
