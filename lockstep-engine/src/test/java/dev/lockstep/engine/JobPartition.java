package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * One partition of {@code lock.commands} run through the state machine in memory, with the
 * commands of the engine's tests for one resource, {@code job}: the shared fixture of the tests
 * of queues, shares, cancellations and leadership.
 */
final class JobPartition {

    static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");

    final PartitionMachine machine;
    final PartitionState state = PartitionState.empty(PartitionPosition.START);
    final PartitionDriver driver;
    private final Duration step;
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
        this.driver = PartitionDriver.worker(machine, state, "lock.commands", 0);
    }

    /** The next {@code records} records are gone from the log before they were applied: the partition is quarantined. */
    void lose(int records) {
        state.position(state.position().afterLoss(state.position().nextOffset() + records));
    }

    /** The offset the next record gets. */
    long nextOffset() {
        return driver.nextOffset();
    }

    /** The next record, at log time {@code when}. */
    Step at(Instant when, String json) {
        time = when;
        return driver.append("job", json, time);
    }

    /** The next record, {@code step} after the one before (the first at {@link #T0}). */
    Step send(String json) {
        Step result = driver.append("job", json, time);
        time = time.plus(step);
        return result;
    }

    /** A tick at {@code when}. */
    Step tick(Instant when) {
        time = when;
        return driver.tick(when);
    }

    /** A lone hand-over of {@code resource} (a run of one), as a producer may forge one, {@code step} after the record before. */
    Step handOver(String resource) {
        Step result = driver.handOver(resource, 1, 1, time);
        time = time.plus(step);
        return result;
    }

    /** The first hand-over in flight lands, {@code step} after the record before. */
    Step deliver() {
        Step result = driver.deliver(1, time).get(0);
        time = time.plus(step);
        return result;
    }

    /**
     * The hand-overs in flight land, as the worker appends them, and those they ask for in turn,
     * until none is due: their steps, in log order.
     */
    List<Step> handOvers() {
        List<Step> steps = new ArrayList<>();
        while (!driver.inFlight().isEmpty()) {
            steps.add(deliver());
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

    /** The last record appended. */
    Inbound last() {
        return driver.log().get(driver.log().size() - 1);
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
