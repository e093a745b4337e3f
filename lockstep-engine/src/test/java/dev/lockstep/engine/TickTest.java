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
    private final PartitionDriver partition = PartitionDriver.worker(machine, state, "lock.commands", 0);

    /** A producer's record at {@code T0}. */
    private Step append(byte[] key, byte[] value, RecordHeaders headers) {
        return partition.append(key, value, InboundHeaders.of(headers), Optional.of(T0));
    }

    private static RecordHeaders headers(String key, byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(key, value);
        return headers;
    }

    private static String acquire(int ttlSeconds) {
        return "{\"request_id\":\"q\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"a\","
                + "\"ttl_seconds\":" + ttlSeconds + "}";
    }

    private static List<LeaseEvent> events(Step step) {
        return step.events().stream().map(e -> EventCodec.decode(e.value())).toList();
    }

    @Test
    void aTickShowsTheLeaseThatEndedBeforeItAndIsNotAnswered() {
        partition.append("job", acquire(2), T0);

        Step early = partition.tick(T0.plusSeconds(1));
        Step due = partition.tick(T0.plusMillis(2_300));

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
        partition.append("job", acquire(1), T0);
        Step first = partition.tick(T0.plusSeconds(2));

        Step again = partition.apply(partition.log().get(1));

        assertThat(again.events()).extracting(Outbound.Event::entry).isEqualTo(
                first.events().stream().map(Outbound.Event::entry).toList());
        assertThat(again.answer()).isEmpty();
    }

    @Test
    void aTickIsAnsweredByNobodyWhateverItsDeadlineSays() {
        Step step = append(null, new byte[0], headers(Tick.HEADER,
                "2099-01-01T00:00:00Z".getBytes(StandardCharsets.UTF_8)));

        assertThat(step.answer()).isEmpty();
        assertThat(state.position().clock()).as("log time is the log-append time, not the header's")
                .isEqualTo(T0);
    }

    @Test
    void aRecordWithTheTickHeaderInAnotherShapeIsDeadLetteredAndDecidesNothing() {
        byte[] due = Tick.headerValue(T0, Optional.empty());
        RecordHeaders twice = headers(Tick.HEADER, due);
        twice.add(Tick.HEADER, due);
        RecordHeaders marked = headers(Tick.HEADER, due);
        marked.add(DeadLetterHeaders.UNDELIVERABLE, "x".getBytes(StandardCharsets.UTF_8));
        partition.append("job", acquire(60), T0);
        List<Step> malformed = List.of(
                append("job".getBytes(StandardCharsets.UTF_8), null, headers(Tick.HEADER, due)),
                append(null, acquire(5).getBytes(StandardCharsets.UTF_8), headers(Tick.HEADER, due)),
                append(null, null, twice),
                append(null, null, headers(Tick.HEADER, "soon".getBytes(StandardCharsets.UTF_8))),
                append(null, null, headers(Tick.HEADER, null)),
                append(null, null, headers(Tick.HEADER, new byte[129])),
                append(null, null, headers(Tick.HEADER, (T0 + ";prev=1").getBytes(StandardCharsets.UTF_8))),
                append(null, null, headers(Tick.HEADER, (T0 + ";prev=x;elapsed_ms=5").getBytes(StandardCharsets.UTF_8))),
                append(null, null, headers(Tick.HEADER, (T0 + ";prev=1;elapsed_ms=-5")
                        .getBytes(StandardCharsets.UTF_8))),
                append(null, null, marked));

        for (Step step : malformed) {
            assertThat(step.answer()).as(step.toString()).get().isInstanceOfSatisfying(Outbound.DeadLetter.class,
                    dead -> {
                        assertThat(dead.cause()).isEqualTo(Outbound.Cause.UNREADABLE);
                        assertThat(dead.reason()).contains(Tick.HEADER);
                    });
            assertThat(step.events()).isEmpty();
        }
        assertThat(state.lease("job")).as("the lease stands as the acquire left it").get()
                .extracting(lease -> lease.expiresAt()).isEqualTo(T0.plusSeconds(60));
        assertThat(state.position().nextOffset()).isEqualTo(11);
    }
}
