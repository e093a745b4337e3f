package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.Limits;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The mark of an undeliverable reply to an acquire that waited: a later record decided it, so the
 * mark names the acquire and the reply's request ID and route, and the dead letter carries that
 * acquire's reply, never the deciding record's own.
 */
class WaiterReplyMarkTest {

    private static final Instant T0 = Instant.parse("2026-12-05T06:00:00Z");
    private static final String GONE = "lock.replies.gone";
    private static final String MISSING = "reply topic '" + GONE + "' does not exist";
    private static final String HOLD = "{\"request_id\":\"a1\",\"type\":\"acquire\",\"resource\":\"job\","
            + "\"owner\":\"A\",\"ttl_seconds\":30}";
    private static final String WAIT = "{\"request_id\":\"b1\",\"type\":\"acquire\",\"resource\":\"job\","
            + "\"owner\":\"B\",\"ttl_seconds\":30,\"wait_ms\":60000,\"reply_to\":\"" + GONE + "\"}";
    private static final String RELEASE = "{\"request_id\":\"rel\",\"type\":\"release\",\"resource\":\"job\","
            + "\"owner\":\"A\"}";
    private final PartitionMachine machine = new PartitionMachine(new EngineSettings(Limits.defaults(),
            Duration.ofMinutes(10), new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1));

    private static Inbound command(long offset, String json, RecordHeaders headers) {
        return new Inbound("lock.commands", 0, offset, "job".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.of(headers), Optional.of(T0.plusSeconds(offset)));
    }

    private static Inbound command(long offset, String json) {
        return command(offset, json, new RecordHeaders());
    }

    /** What the worker writes for a waiter's reply: no copy, but the acquire's position, request ID and route. */
    private static Inbound mark(long offset, String replyOf, String requestId, String topic, Integer partition) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(DeadLetterHeaders.UNDELIVERABLE, MISSING.getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.REPLY_OF, replyOf.getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.REPLY_REQUEST, requestId.getBytes(StandardCharsets.UTF_8));
        headers.add("kafka_replyTopic", topic.getBytes(StandardCharsets.UTF_8));
        if (partition != null) {
            headers.add("kafka_replyPartition", ByteBuffer.allocate(4).putInt(partition).array());
        }
        headers.add("kafka_correlationId", new byte[] {7});
        return new Inbound("lock.commands", 0, offset, requestId.getBytes(StandardCharsets.UTF_8), new byte[0],
                InboundHeaders.of(headers), Optional.of(T0.plusSeconds(offset)));
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

    /** A holds; B waits with its replies routed to a missing topic; A's release grants B at offset 2. */
    private static Outbound.ReplyRecord handedOver(PartitionDriver partition) {
        append(partition, command(0, HOLD));
        assertThat(append(partition, command(1, WAIT)).answer()).as("B waits").isEmpty();
        Step release = append(partition, command(2, RELEASE));
        assertThat(release.deferred()).hasSize(1);
        return release.deferred().get(0);
    }

    @Test
    void theGrantIsPublishedByTheReleaseButAnswersTheAcquire() {
        Outbound.ReplyRecord grant = handedOver(partition(PartitionState.empty(PartitionPosition.START)));
        assertThat(grant.source().offset()).isEqualTo(2);
        assertThat(grant.requestOffset()).isEqualTo(1);
        assertThat(grant.deferred()).isTrue();
        assertThat(grant.route().topic()).isEqualTo(GONE);
        assertThat(new String(grant.value(), StandardCharsets.UTF_8)).contains("\"request_id\":\"b1\"")
                .contains("\"outcome\":\"acquired\"");
    }

    @Test
    void theDeadLetterCarriesTheWaitersGrantOnItsRouteAndChangesNothing() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        Outbound.ReplyRecord grant = handedOver(partition);
        RequestEntry entry = state.request("b1").orElseThrow();

        Outbound.DeadLetter dead = dead(append(partition, mark(3, "lock.commands-0@1", "b1", GONE, 2)));

        assertThat(dead.cause()).isEqualTo(Outbound.Cause.REPLY_UNDELIVERABLE);
        assertThat(dead.reason()).isEqualTo(MISSING);
        Outbound.ReplyRecord undelivered = dead.reply().orElseThrow();
        assertThat(undelivered.value()).as("B's grant, not the release's reply").isEqualTo(grant.value());
        assertThat(undelivered.requestId()).isEqualTo("b1");
        assertThat(undelivered.route().topic()).isEqualTo(GONE);
        assertThat(undelivered.route().partition()).hasValue(2);
        assertThat(undelivered.correlationId()).hasValueSatisfying(id -> assertThat(id).containsExactly(7));
        assertThat(state.request("b1")).contains(entry);
        assertThat(state.lease("job").orElseThrow().owner()).isEqualTo("B");
    }

    @Test
    void aReplayAndTheMarkFetchedAgainMakeTheSameDeadLetter() {
        List<Inbound> log = List.of(command(0, HOLD), command(1, WAIT), command(2, RELEASE),
                mark(3, "lock.commands-0@1", "b1", GONE, null));
        PartitionState worker = PartitionState.empty(PartitionPosition.START);
        List<Outbound> first = machine.prepare(log).applyTo(worker);
        List<Outbound> replayed = machine.prepare(log).applyTo(PartitionState.empty(PartitionPosition.START));
        List<Outbound> again = machine.prepare(log).applyTo(worker);

        for (List<Outbound> run : List.of(first, replayed, again)) {
            Outbound.DeadLetter dead = (Outbound.DeadLetter) run.get(run.size() - 1);
            assertThat(new String(dead.reply().orElseThrow().value(), StandardCharsets.UTF_8))
                    .contains("\"request_id\":\"b1\"").contains("\"outcome\":\"acquired\"");
        }
    }

    @Test
    void aBatchLoadsTheNamedRequestsEntry() {
        PreparedBatch batch = machine.prepare(List.of(mark(7, "lock.commands-0@1", "b1", GONE, null)));
        assertThat(batch.requestIds()).containsExactly("b1");
        assertThat(batch.resourcesFrom(0)).as("a mark reads no lease").isEmpty();
    }

    /** Only a reply a later record decided for the acquire at the named offset: anything else is gone. */
    @Test
    void aMarkNamingNoWaitersReplyIsDeadLetteredAsGone() {
        List<Inbound> marks = new ArrayList<>();
        marks.add(mark(3, "lock.commands-0@2", "b1", GONE, null)); // the release's offset, not the acquire's
        marks.add(mark(3, "lock.commands-0@0", "a1", GONE, null)); // answered at once, never deferred
        marks.add(mark(3, "lock.commands-0@1", "nobody", GONE, null));
        for (Inbound mark : marks) {
            PartitionDriver partition = partition(PartitionState.empty(PartitionPosition.START));
            handedOver(partition);
            Outbound.DeadLetter dead = dead(append(partition, mark));
            assertThat(dead.cause()).as(mark.toString()).isEqualTo(Outbound.Cause.REPLY_GONE);
            assertThat(dead.reply()).isEmpty();
        }
    }

    @Test
    void aMarkBeforeTheGrantNamesNoReply() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        append(partition, command(0, HOLD));
        append(partition, command(1, WAIT));
        Outbound.DeadLetter dead = dead(append(partition, mark(2, "lock.commands-0@1", "b1", GONE, null)));
        assertThat(dead.cause()).isEqualTo(Outbound.Cause.REPLY_GONE);
        assertThat(state.queues().waiting("b1")).as("still waits").isPresent();
    }

    @Test
    void aMarkWithARefusedRouteOrNoRequestIdIsDeadLetteredAndAppliesNothing() {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        PartitionDriver partition = partition(state);
        handedOver(partition);
        Outbound.DeadLetter refused = dead(append(partition, mark(3, "lock.commands-0@1", "b1", "payments", null)));
        assertThat(refused.cause()).isEqualTo(Outbound.Cause.ROUTE_REFUSED);
        Outbound.DeadLetter empty = dead(append(partition, mark(4, "lock.commands-0@1", "", GONE, null)));
        assertThat(empty.cause()).isEqualTo(Outbound.Cause.UNREADABLE);
        assertThat(empty.reason()).contains(DeadLetterHeaders.REPLY_REQUEST);
        Outbound.DeadLetter later = dead(append(partition, mark(5, "lock.commands-0@9", "b1", GONE, null)));
        assertThat(later.cause()).as("names no earlier record").isEqualTo(Outbound.Cause.UNREADABLE);
        assertThat(state.lease("job").orElseThrow().owner()).isEqualTo("B");
        assertThat(state.position().nextOffset()).isEqualTo(6);
    }
}
