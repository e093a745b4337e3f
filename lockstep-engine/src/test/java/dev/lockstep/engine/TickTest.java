package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.Tick;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * A tick advances its partition's log time to its log-append time, shows what ended up to it, and
 * is never answered; a record with the tick header in any other shape is dead-lettered and decides
 * nothing.
 */
class TickTest {

    private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofMinutes(5),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);

    private final PartitionMachine machine = new PartitionMachine(SETTINGS);
    private final PartitionState state = PartitionState.empty(PartitionPosition.START);

    /** A tick as the worker appends it. */
    static Inbound tick(long offset, Instant at) {
        return record(offset, at, null, null, headers(Tick.HEADER, Tick.headerValue(at)));
    }

    private static Inbound record(long offset, Instant at, byte[] key, byte[] value, RecordHeaders headers) {
        return new Inbound("lock.commands", 0, offset, key, value, InboundHeaders.of(headers), Optional.of(at));
    }

    private static RecordHeaders headers(String key, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(key, value);
        return headers;
    }

    private static Inbound acquire(long offset, Instant at, int ttlSeconds) {
        String json = "{\"request_id\":\"q" + offset + "\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"a\","
                + "\"ttl_seconds\":" + ttlSeconds + "}";
        return record(offset, at, "job".getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8),
                new RecordHeaders());
    }

    private static List<LeaseEvent> events(Step step) {
        return step.events().stream().map(e -> EventCodec.decode(e.value())).toList();
    }

    @Test
    void aTickShowsTheLeaseThatEndedBeforeItAndIsNotAnswered() {
        machine.step(acquire(0, T0, 2), state);

        Step early = machine.step(tick(1, T0.plusSeconds(1)), state);
        Step due = machine.step(tick(2, T0.plusMillis(2_300)), state);

        assertThat(early.events()).as("nothing ended yet").isEmpty();
        assertThat(early.answer()).isEmpty();
        assertThat(events(due)).singleElement().satisfies(event -> {
            assertThat(event.kind()).isEqualTo(LeaseEvent.Kind.EXPIRED);
            assertThat(event.at()).as("the instant the lease ended").isEqualTo(T0.plusSeconds(2));
            assertThat(event.source()).isEqualTo("lock.commands-0@2");
            assertThat(event.requestId()).isEmpty();
        });
        assertThat(due.answer()).isEmpty();
        assertThat(state.position().nextOffset()).isEqualTo(3);
        assertThat(state.position().clock()).isEqualTo(T0.plusMillis(2_300));
    }

    @Test
    void aTickFetchedAgainShowsTheSameEventsAgain() {
        machine.step(acquire(0, T0, 1), state);
        Step first = machine.step(tick(1, T0.plusSeconds(2)), state);

        Step again = machine.step(tick(1, T0.plusSeconds(2)), state);

        assertThat(again.events()).extracting(Outbound.Event::entry).isEqualTo(
                first.events().stream().map(Outbound.Event::entry).toList());
        assertThat(again.answer()).isEmpty();
    }

    @Test
    void aTickIsAnsweredByNobodyWhateverItsDeadlineSays() {
        Inbound forged = record(0, T0, null, new byte[0], headers(Tick.HEADER,
                "2099-01-01T00:00:00Z".getBytes(StandardCharsets.UTF_8)));

        Step step = machine.step(forged, state);

        assertThat(step.answer()).isEmpty();
        assertThat(state.position().clock()).as("log time is the log-append time, not the header's")
                .isEqualTo(T0);
    }

    @Test
    void aRecordWithTheTickHeaderInAnotherShapeIsDeadLetteredAndDecidesNothing() {
        byte[] due = Tick.headerValue(T0);
        RecordHeaders twice = headers(Tick.HEADER, due);
        twice.add(Tick.HEADER, due);
        RecordHeaders marked = headers(Tick.HEADER, due);
        marked.add(DeadLetterHeaders.UNDELIVERABLE, "x".getBytes(StandardCharsets.UTF_8));
        List<Inbound> malformed = List.of(
                record(1, T0, "job".getBytes(StandardCharsets.UTF_8), null, headers(Tick.HEADER, due)),
                record(2, T0, null, acquire(2, T0, 5).value(), headers(Tick.HEADER, due)),
                record(3, T0, null, null, twice),
                record(4, T0, null, null, headers(Tick.HEADER, "soon".getBytes(StandardCharsets.UTF_8))),
                record(5, T0, null, null, headers(Tick.HEADER, null)),
                record(6, T0, null, null, headers(Tick.HEADER, new byte[65])),
                record(7, T0, null, null, marked));
        machine.step(acquire(0, T0, 60), state);

        for (Inbound record : malformed) {
            Step step = machine.step(record, state);
            assertThat(step.answer()).as(record.position()).get().isInstanceOfSatisfying(Outbound.DeadLetter.class,
                    dead -> {
                        assertThat(dead.cause()).isEqualTo(Outbound.Cause.UNREADABLE);
                        assertThat(dead.reason()).contains(Tick.HEADER);
                    });
            assertThat(step.events()).isEmpty();
        }
        assertThat(state.lease("job")).as("the lease stands as the acquire left it").get()
                .extracting(lease -> lease.expiresAt()).isEqualTo(T0.plusSeconds(60));
        assertThat(state.position().nextOffset()).isEqualTo(8);
    }
}
