package dev.lockstep.replay;

import dev.lockstep.engine.InboundHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * A reply the worker marked undeliverable in the log is not expected on its topic: a replay that
 * finds the topic created since does not call it missing, unless a later record answered it again.
 */
class UndeliveredReplyCheckTest {

    private static final Instant T0 = Instant.parse("2026-12-05T06:00:00Z");
    private static final String GONE = "lock.replies.gone";
    private static final String ACQUIRE = "{\"request_id\":\"r1\",\"type\":\"acquire\",\"resource\":\"job\","
            + "\"owner\":\"o1\",\"ttl_seconds\":30,\"reply_to\":\"" + GONE + "\"}";
    private final PartitionMachine machine = new PartitionMachine(new EngineSettings(Limits.defaults(),
            Duration.ofMinutes(10), new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1));

    private static Inbound record(long offset, boolean marked) {
        RecordHeaders headers = new RecordHeaders();
        if (marked) {
            headers.add(DeadLetterHeaders.UNDELIVERABLE, "reply topic missing".getBytes(StandardCharsets.UTF_8));
            headers.add(DeadLetterHeaders.REPLY_OF, "lock.commands-0@0".getBytes(StandardCharsets.UTF_8));
        }
        return new Inbound("lock.commands", 0, offset, "job".getBytes(StandardCharsets.UTF_8),
                ACQUIRE.getBytes(StandardCharsets.UTF_8), InboundHeaders.of(headers), Optional.of(T0.plusSeconds(offset)));
    }

    /** The findings of a check of {@code log} against a reply topic on which nothing was published. */
    private List<ExpectedTexts.Finding> findings(List<Inbound> log) {
        Expectations expected = new Expectations(TimeWindow.ALL, "lock.commands", log.size());
        PartitionDriver replay = PartitionDriver.log(machine, PartitionState.empty(PartitionPosition.START));
        log.forEach(record -> expected.add(record, replay.apply(record), true));
        PublicationCheck check = new PublicationCheck(expected, true, Map.of(0, 0L));
        check.endOfReplies(GONE);
        return check.findings();
    }

    @Test
    void aMarkedReplyIsNotMissing() {
        assertThat(findings(List.of(record(0, false), record(1, true)))).isEmpty();
    }

    @Test
    void withoutTheMarkTheSameReplyIsMissing() {
        assertThat(findings(List.of(record(0, false)))).extracting(ExpectedTexts.Finding::kind)
                .containsExactly(Divergence.Kind.REPLY_MISSING);
    }

    @Test
    void aRetryAfterTheMarkIsExpectedAgain() {
        assertThat(findings(List.of(record(0, false), record(1, true), record(2, false))))
                .extracting(ExpectedTexts.Finding::kind).containsExactly(Divergence.Kind.REPLY_MISSING);
    }

    /**
     * A waiter's reply, published by the record that granted it: its mark names the acquire and
     * the reply's route, and the replay stops expecting that reply, not the granting record's own.
     */
    @Test
    void aWaitersMarkedReplyIsNotMissingAndTheGrantingRecordsOwnIsStillExpected() {
        String hold = "{\"request_id\":\"a1\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"A\","
                + "\"ttl_seconds\":30,\"reply_to\":\"" + GONE + "\"}";
        String wait = "{\"request_id\":\"b1\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"B\","
                + "\"ttl_seconds\":30,\"wait_ms\":60000,\"reply_to\":\"" + GONE + "\"}";
        String release = "{\"request_id\":\"rel\",\"type\":\"release\",\"resource\":\"job\",\"owner\":\"A\","
                + "\"reply_to\":\"" + GONE + "\"}";
        RecordHeaders mark = new RecordHeaders();
        mark.add(DeadLetterHeaders.UNDELIVERABLE, "reply topic missing".getBytes(StandardCharsets.UTF_8));
        mark.add(DeadLetterHeaders.REPLY_OF, "lock.commands-0@1".getBytes(StandardCharsets.UTF_8));
        mark.add(DeadLetterHeaders.REPLY_REQUEST, "b1".getBytes(StandardCharsets.UTF_8));
        mark.add("kafka_replyTopic", GONE.getBytes(StandardCharsets.UTF_8));
        List<Inbound> log = List.of(plain(0, hold), plain(1, wait), plain(2, release),
                new Inbound("lock.commands", 0, 3, "b1".getBytes(StandardCharsets.UTF_8), new byte[0],
                        InboundHeaders.of(mark), Optional.of(T0.plusSeconds(3))));

        assertThat(findings(log)).as("the holder's and the release's replies, not the waiter's")
                .extracting(ExpectedTexts.Finding::source).containsExactlyInAnyOrder("lock.commands-0@0", "lock.commands-0@2");
    }

    private static Inbound plain(long offset, String json) {
        return new Inbound("lock.commands", 0, offset, "job".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(T0.plusSeconds(offset)));
    }
}
