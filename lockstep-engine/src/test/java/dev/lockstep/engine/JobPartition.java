package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.HandOver;
import java.util.ArrayDeque;
import java.util.ArrayList;
import org.apache.kafka.common.header.internals.RecordHeaders;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ReplyDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One partition of {@code lock.commands} run through the state machine in memory, with the
 * commands of the engine's tests for one resource, {@code job}: the shared fixture of the tests
 * of queues, shares, cancellations and leadership.
 */
final class JobPartition {

    static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");

    final PartitionMachine machine;
    final PartitionState state = PartitionState.empty(PartitionPosition.START);
    private final Duration step;
    private long offset;
    private Instant time = T0;

    /** @param step how far log time moves from one record sent without a time to the next */
    JobPartition(Duration step) {
        this(step, Limits.defaults());
    }

    /** @param limits the recorded limits: the longest TTL among them */
    JobPartition(Duration step, Limits limits) {
        this.step = step;
        this.machine = new PartitionMachine(new EngineSettings(limits, Duration.ofMinutes(10),
                new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1));
    }

    /** The next {@code records} records are gone from the log before they were applied: the partition is quarantined. */
    void lose(int records) {
        offset += records;
        state.position(state.position().afterLoss(offset));
    }

    /** The offset the next record gets. */
    long nextOffset() {
        return offset;
    }

    /** The next record, at log time {@code when}. */
    Step at(Instant when, String json) {
        time = when;
        return step(json);
    }

    /** The next record, {@code step} after the one before (the first at {@link #T0}). */
    Step send(String json) {
        Step result = step(json);
        time = time.plus(step);
        return result;
    }

    /** A tick at {@code when}. */
    Step tick(Instant when) {
        time = when;
        return machine.step(TickTest.tick(offset++, when), state);
    }

    /** A lone hand-over of {@code resource} (a run of one), as the ticker appends one again, {@code step} after the record before. */
    Step handOver(String resource) {
        return handOver(resource, 1, 1);
    }

    /** The {@code index}-th of a run of {@code count} hand-overs of {@code resource}. */
    Step handOver(String resource, int index, int count) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HandOver.HEADER, HandOver.headerValue("lock.commands-0@" + (offset - 1), index, count));
        Step result = machine.step(new Inbound("lock.commands", 0, offset++, resource.getBytes(StandardCharsets.UTF_8),
                null, InboundHeaders.of(headers), Optional.of(time)), state);
        time = time.plus(step);
        return result;
    }

    /**
     * The hand-overs the step asks for appended, as the worker appends them, and those they ask
     * for in turn, until none is due: their steps, in log order.
     */
    List<Step> handOvers(Step step) {
        List<Step> steps = new ArrayList<>();
        ArrayDeque<Outbound.HandOver> due = new ArrayDeque<>(step.handOvers());
        while (!due.isEmpty()) {
            Outbound.HandOver next = due.poll();
            Step handedOver = handOver(next.resource(), next.index(), next.count());
            steps.add(handedOver);
            due.addAll(handedOver.handOvers());
        }
        return steps;
    }

    /** The next record comes at log time {@code when}. */
    void skipTo(Instant when) {
        time = when;
    }

    /** The log time of the last record. */
    Instant time() {
        return time;
    }

    /** The next record, at log time {@code when}, built but not applied. */
    Inbound record(Instant when, String json) {
        time = when;
        return new Inbound("lock.commands", 0, offset++, "job".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(when));
    }

    private Step step(String json) {
        return machine.step(record(time, json), state);
    }

    /** An acquire of {@code job}; {@code fields} are further JSON fields, each with its leading comma. */
    static String acquire(String id, String owner, int ttlSeconds, long waitMs, String fields) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"" + owner
                + "\",\"ttl_seconds\":" + ttlSeconds + (waitMs > 0 ? ",\"wait_ms\":" + waitMs : "") + fields + "}";
    }

    static String acquire(String id, String owner, int ttlSeconds, long waitMs) {
        return acquire(id, owner, ttlSeconds, waitMs, "");
    }

    static String release(String id, String owner) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"release\",\"resource\":\"job\",\"owner\":\"" + owner + "\"}";
    }

    static String cancel(String id, String owner, String acquireId) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"release\",\"resource\":\"job\",\"owner\":\"" + owner
                + "\",\"cancels\":\"" + acquireId + "\"}";
    }

    static Verdict verdict(Outbound.ReplyRecord reply) {
        return ReplyDecoder.decode(reply.value()).orElseThrow().reply();
    }

    /** The verdict of the record's own reply. */
    static Verdict verdict(Step step) {
        return verdict((Outbound.ReplyRecord) step.answer().orElseThrow());
    }

    /** The lease the record's own reply grants. */
    static Lease granted(Step step) {
        return ((Verdict.Acquired) verdict(step)).lease();
    }

    /** The leases the record granted to waiters, in order. */
    static List<Lease> deferredGrants(Step step) {
        return step.deferred().stream().map(JobPartition::verdict)
                .map(verdict -> ((Verdict.Acquired) verdict).lease()).toList();
    }

    static List<LeaseEvent> events(Step step) {
        return step.events().stream().map(e -> EventCodec.decode(e.value())).toList();
    }
}
