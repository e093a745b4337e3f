package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The worker's marker for a reply it could not deliver: a copy of the command record, on the same
 * partition, that the state machine turns into the dead letter, so the dead letter is the log's.
 */
class UndeliverableMarkerTest {

    private static final Instant T0 = Instant.parse("2026-12-05T06:00:00Z");
    private static final String ACQUIRE = "{\"request_id\":\"r1\",\"type\":\"acquire\",\"resource\":\"job\","
            + "\"owner\":\"o1\",\"ttl_seconds\":30,\"reply_to\":\"lock.replies.gone\"}";
    private static final String MISSING = "reply topic 'lock.replies.gone' does not exist";
    private final PartitionMachine machine = new PartitionMachine(new EngineSettings(Limits.defaults(),
            Duration.ofMinutes(10), new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1));

    private static Inbound command(long offset, String json) {
        return new Inbound("lock.commands", 0, offset, "job".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(T0.plusSeconds(offset)));
    }

    /** What the worker writes: the command again, with why and which record. */
    private static Inbound marker(long offset, String json, String reason, String replyOf) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DeadLetterHeaders.UNDELIVERABLE, reason.getBytes(StandardCharsets.UTF_8));
        if (replyOf != null) {
            headers.add(DeadLetterHeaders.REPLY_OF, replyOf.getBytes(StandardCharsets.UTF_8));
        }
        return new Inbound("lock.commands", 0, offset, "job".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.of(headers), Optional.of(T0.plusSeconds(offset)));
    }

    /** {@code record} with one header more. */
    private static Inbound with(Inbound record, String key, byte[] value) {
        RecordHeaders headers = record.headers().toKafka();
        headers.add(key, value);
        return new Inbound(record.topic(), record.partition(), record.offset(), record.key(), record.value(),
                InboundHeaders.of(headers), record.logAppendTime());
    }

    /** The worker's partition over {@code state}. */
    private PartitionDriver partition(PartitionState state) {
        return PartitionDriver.worker(machine, state, "lock.commands", 0);
    }

    /** Appends a record built for the partition's next offset, as it was built. */
    private static Step append(PartitionDriver partition, Inbound record) {
        assertThat(record.offset()).as("built for the next offset").isEqualTo(partition.nextOffset());
        return partition.append(record.key(), record.value(), record.headers(), record.logAppendTime());
    }

    private static Outbound.DeadLetter dead(Step step) {
        assertThat(step.answer()).get().isInstanceOf(Outbound.DeadLetter.class);
        return (Outbound.DeadLetter) step.answer().orElseThrow();
    }

    @Test
    void theMarkedRecordsReplyGoesToTheDeadLettersAndNothingElseChanges() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        Outbound.ReplyRecord granted = (Outbound.ReplyRecord) append(partition, command(0, ACQUIRE)).answer().orElseThrow();
        Lease lease = state.lease("job").orElseThrow();

        Outbound.DeadLetter dead = dead(append(partition, marker(1, ACQUIRE, MISSING, "lock.commands-0@0")));

        assertThat(dead.cause()).isEqualTo(Outbound.Cause.REPLY_UNDELIVERABLE);
        assertThat(dead.reason()).isEqualTo(MISSING);
        assertThat(dead.source().offset()).isEqualTo(1);
        Outbound.ReplyRecord undelivered = dead.reply().orElseThrow();
        assertThat(undelivered.value()).as("the reply the command was decided with").isEqualTo(granted.value());
        assertThat(undelivered.route().topic()).isEqualTo("lock.replies.gone");
        assertThat(undelivered.requestId()).isEqualTo("r1");
        assertThat(state.lease("job")).contains(lease);
        assertThat(state.request("r1").map(RequestEntry::offset)).contains(0L);
        assertThat(state.position().nextOffset()).isEqualTo(2);

        String other = ACQUIRE.replace("r1", "r2").replace("o1", "o2");
        assertThat(new String(((Outbound.ReplyRecord) append(partition, command(2, other)).answer().orElseThrow()).value(),
                StandardCharsets.UTF_8)).as("the lease still held").contains("\"outcome\":\"not_acquired\"");
    }

    @Test
    void aReplayAndARecordFetchedAgainMakeTheSameDeadLetter() {
        List<Inbound> log = List.of(command(0, ACQUIRE), marker(1, ACQUIRE, MISSING, "lock.commands-0@0"));
        PartitionState worker = PartitionState.empty(PartitionPosition.START);
        List<Outbound> first = machine.prepare(log).applyTo(worker);
        PartitionState replay = PartitionState.empty(PartitionPosition.START);
        List<Outbound> replayed = machine.prepare(log).applyTo(replay);
        List<Outbound> again = machine.prepare(log).applyTo(worker);

        byte[] reply = ((Outbound.DeadLetter) first.get(first.size() - 1)).reply().orElseThrow().value();
        for (List<Outbound> run : List.of(replayed, again)) {
            Outbound.DeadLetter dead = (Outbound.DeadLetter) run.get(run.size() - 1);
            assertThat(dead.reply().orElseThrow().value()).isEqualTo(reply);
            assertThat(dead.reason()).isEqualTo(MISSING);
        }
    }

    @Test
    void aBatchLoadsTheMarkedRequestsEntry() {
        PreparedBatch batch = machine.prepare(List.of(marker(7, ACQUIRE, MISSING, "lock.commands-0@3")));
        assertThat(batch.requestIds()).containsExactly("r1");
        assertThat(batch.resourcesFrom(0)).as("a marker reads no lease").isEmpty();
    }

    @Test
    void anInvalidCommandsReplyIsMadeAgainFromTheRecord() {
        String invalid = ACQUIRE.replace("\"ttl_seconds\":30", "\"ttl_seconds\":\"30\"");
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        byte[] rejected = ((Outbound.ReplyRecord) append(partition, command(0, invalid)).answer().orElseThrow()).value();

        Outbound.DeadLetter dead = dead(append(partition, marker(1, invalid, MISSING, "lock.commands-0@0")));

        assertThat(dead.cause()).isEqualTo(Outbound.Cause.REPLY_UNDELIVERABLE);
        assertThat(dead.reply().orElseThrow().value()).isEqualTo(rejected);
    }

    @Test
    void aMarkerNamingNoStoredReplyIsDeadLetteredAsGone() {
        PartitionState state = PartitionState.empty(PartitionPosition.fresh(5, T0, 0));
        PartitionDriver partition = partition(state);
        Outbound.DeadLetter dead = dead(append(partition, marker(5, ACQUIRE, MISSING, "lock.commands-0@2")));
        assertThat(dead.cause()).isEqualTo(Outbound.Cause.REPLY_GONE);
        assertThat(dead.reply()).isEmpty();
        assertThat(state.lease("job")).as("never applied as a command").isEmpty();
    }

    @Test
    void aMarkerDoesNotReachBackToAReplyGivenAfterTheRecordItNames() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        append(partition, command(0, ACQUIRE.replace("r1", "other")));
        append(partition, command(1, ACQUIRE));
        Outbound.DeadLetter dead = dead(append(partition, marker(2, ACQUIRE, MISSING, "lock.commands-0@0")));
        assertThat(dead.cause()).as("r1 was first applied at offset 1, after the record named").isEqualTo(
                Outbound.Cause.REPLY_GONE);
    }

    @Test
    void aMalformedMarkerIsDeadLetteredAndAppliesNothing() {
        for (String replyOf : new String[] {null, "lock.commands-0@9", "lock.commands-0@5", "lock.commands-1@0",
                "other-0@0", "lock.commands-0@x", "lock.commands-0@-1"}) {
            PartitionState state = PartitionState.empty(PartitionPosition.fresh(5, T0, 0));
            PartitionDriver partition = partition(state);
            Outbound.DeadLetter dead = dead(append(partition, marker(5, ACQUIRE, MISSING, replyOf)));
            assertThat(dead.cause()).as(String.valueOf(replyOf)).isEqualTo(Outbound.Cause.UNREADABLE);
            assertThat(dead.reason()).contains(DeadLetterHeaders.REPLY_OF);
            assertThat(state.lease("job")).isEmpty();
            assertThat(state.position().nextOffset()).isEqualTo(6);
        }
    }

    @Test
    void aMarkerOfARecordThatGotNoReplyIsDeadLetteredWithThatRecordsReason() {
        PartitionState state = PartitionState.empty(PartitionPosition.fresh(5, T0, 0));
        PartitionDriver partition = partition(state);
        Outbound.DeadLetter dead = dead(append(partition, marker(5, "not json", MISSING, "lock.commands-0@1")));
        assertThat(dead.cause()).isEqualTo(Outbound.Cause.UNREADABLE);
        assertThat(dead.reason()).startsWith("marks a record that got no reply: ");
        assertThat(dead.reply()).isEmpty();
    }

    @Test
    void aForgedReasonIsCut() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        append(partition, command(0, ACQUIRE));
        Outbound.DeadLetter dead = dead(append(partition, marker(1, ACQUIRE, "x".repeat(10_000), "lock.commands-0@0")));
        assertThat(dead.reason()).hasSize(Triage.MAX_REASON);
    }

    /**
     * A mark the worker had to cut to fit the command topic (an oversized key with its reply topic
     * missing) cannot answer as its record: it is dead-lettered saying where the record is, and
     * changes nothing.
     */
    @Test
    void aMarkCutToFitItsTopicIsDeadLetteredNamingTheRecordItMarks() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        append(partition, command(0, ACQUIRE));
        Inbound cut = with(with(marker(1, ACQUIRE, MISSING, "lock.commands-0@0"),
                DeadLetterHeaders.ORIGINAL_KEY_BYTES, "1048000".getBytes(StandardCharsets.UTF_8)),
                DeadLetterHeaders.ORIGINAL_KEY_SHA256, "ab".repeat(32).getBytes(StandardCharsets.UTF_8));

        Outbound.DeadLetter dead = dead(append(partition, cut));

        assertThat(dead.cause()).isEqualTo(Outbound.Cause.REPLY_UNDELIVERABLE);
        assertThat(dead.reason()).contains("lock.commands-0@0").contains(MISSING).contains("too large");
        assertThat(dead.reply()).isEmpty();
        assertThat(state.request("r1").map(RequestEntry::offset)).contains(0L);
        assertThat(state.position().nextOffset()).isEqualTo(2);
    }

    /** A correlation ID is copied onto the reply: one longer than the bound would make the reply any size. */
    @Test
    void aCorrelationIdOverTheBoundMakesTheCommandInvalidAndIsNotCopied() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        String json = ACQUIRE.replace(",\"reply_to\":\"lock.replies.gone\"", "");
        Inbound atBound = with(command(0, json.replace("r1", "r-at")), "kafka_correlationId",
                new byte[Limits.MAX_CORRELATION_ID_BYTES]);
        Outbound.ReplyRecord copied = (Outbound.ReplyRecord) append(partition, atBound).answer().orElseThrow();
        assertThat(new String(copied.value(), StandardCharsets.UTF_8)).contains("\"outcome\":\"acquired\"");
        assertThat(copied.correlationId()).hasValueSatisfying(id -> assertThat(id).hasSize(1024));

        Inbound over = with(command(1, json.replace("r1", "r-over")), "kafka_correlationId",
                new byte[Limits.MAX_CORRELATION_ID_BYTES + 1]);
        Outbound.ReplyRecord refused = (Outbound.ReplyRecord) append(partition, over).answer().orElseThrow();
        String reply = new String(refused.value(), StandardCharsets.UTF_8);
        assertThat(reply).contains("\"outcome\":\"invalid\"").contains("\"field\":\"kafka_correlationId\"")
                .contains("\"type\":\"acquire\"").contains("\"resource\":\"job\"");
        assertThat(refused.correlationId()).isEmpty();
        assertThat(state.request("r-over")).as("not applied").isEmpty();
    }
}
