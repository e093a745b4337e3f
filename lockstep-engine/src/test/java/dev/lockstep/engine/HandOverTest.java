package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ResourcePartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * A record with the hand-over header is a hand-over of its key's resource only in the shape the
 * worker appends (key, no value, one header, on the key's partition); in any other it is
 * dead-lettered, decides nothing and is never read as a command.
 */
class HandOverTest {

    private static final Instant T0 = Instant.parse("2026-12-06T00:00:00Z");
    private static final int PARTITIONS = 4;
    private static final String RESOURCE = "job";
    private static final int HOME = ResourcePartition.of(RESOURCE.getBytes(StandardCharsets.UTF_8), PARTITIONS);

    private final PartitionMachine machine = new PartitionMachine(new EngineSettings(Limits.defaults(),
            Duration.ofMinutes(5), new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", PARTITIONS));

    private static Inbound record(int partition, byte[] key, byte[] value, RecordHeaders headers) {
        return new Inbound("lock.commands", partition, 0, key, value, InboundHeaders.of(headers), Optional.of(T0));
    }

    private static RecordHeaders handOverHeader() {
        return handOverHeader(HandOver.headerValue("lock.commands-" + HOME + "@0", 1, 1));
    }

    private static RecordHeaders handOverHeader(byte[] value) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HandOver.HEADER, value);
        return headers;
    }

    private static byte[] key(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private Optional<Outbound> answer(Inbound record) {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        Step step = machine.step(record, state);
        assertThat(state.position().nextOffset()).as("applied: the partition moves past it").isEqualTo(1);
        return step.answer();
    }

    private String deadLetterReason(Inbound record) {
        Outbound out = answer(record).orElseThrow();
        assertThat(out).isInstanceOf(Outbound.DeadLetter.class);
        return ((Outbound.DeadLetter) out).reason();
    }

    @Test
    void aHandOverAsTheWorkerAppendsItIsNotAnswered() {
        assertThat(answer(record(HOME, key(RESOURCE), null, handOverHeader()))).isEmpty();
        assertThat(answer(record(HOME, key(RESOURCE), new byte[0], handOverHeader()))).as("an empty value is none")
                .isEmpty();
    }

    @Test
    void aHandOverInAnyOtherShapeIsDeadLettered() {
        assertThat(deadLetterReason(record(HOME, key(RESOURCE), key("{}"), handOverHeader()))).contains("no value");
        assertThat(deadLetterReason(record(HOME, null, null, handOverHeader()))).contains("key is its resource");
        assertThat(deadLetterReason(record(HOME, new byte[] {(byte) 0xC3}, null, handOverHeader())))
                .contains("UTF-8");
        assertThat(deadLetterReason(record(HOME, key("a\u0000b"), null, handOverHeader())))
                .contains("control characters");
        assertThat(deadLetterReason(record(HOME, key("x".repeat(Limits.MAX_RESOURCE_CHARS + 1)), null,
                handOverHeader()))).contains("is a resource");
        RecordHeaders twice = handOverHeader();
        twice.add(HandOver.HEADER, HandOver.headerValue("lock.commands-0@1", 1, 1));
        assertThat(deadLetterReason(record(HOME, key(RESOURCE), null, twice))).contains("one " + HandOver.HEADER);
        for (String run : new String[] {"lock.commands-0@0", "lock.commands-0@0 0/1", "lock.commands-0@0 2/1",
                "lock.commands-0@0 1/1001", "lock.commands-0@0 a/b", "lock.commands-0@0 1/"}) {
            assertThat(deadLetterReason(record(HOME, key(RESOURCE), null, handOverHeader(key(run)))))
                    .as(run).contains("its place in its run");
        }
        RecordHeaders marked = handOverHeader();
        marked.add(DeadLetterHeaders.UNDELIVERABLE, key("gone"));
        assertThat(deadLetterReason(record(HOME, key(RESOURCE), null, marked))).contains("marks no record");
    }

    @Test
    void aHandOverOnAnotherPartitionThanItsResourcesGrantsNothingThere() {
        // The resource may have left in a growth, or not arrived yet: no waiter of it is there to grant.
        int elsewhere = (HOME + 1) % PARTITIONS;
        assertThat(answer(record(elsewhere, key(RESOURCE), null, handOverHeader()))).isEmpty();
    }
}
