package dev.lockstep.worker;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.Limits;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.CheckpointPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Builds batch processors and command records for tests that drive the store without Kafka. */
final class Batches {

    /** The default rules, for a command topic of one partition (every record belongs on partition 0). */
    static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);

    private Batches() {
    }

    static BatchProcessor processor(LockStore store) {
        return processor(store, SETTINGS);
    }

    static BatchProcessor processor(LockStore store, EngineSettings settings) {
        return processor(store, settings, partition -> 0L);
    }

    /** @param acknowledged what the worker's acknowledgements say, asked inside each batch's transaction */
    static BatchProcessor processor(LockStore store, EngineSettings settings, ToLongFunction<PartitionId> acknowledged) {
        return new BatchProcessor(store, new PartitionMachine(settings), Optional::empty, acknowledged, CheckpointPolicy.OFF,
                new WorkerMetrics(new SimpleMeterRegistry(), Clock.systemUTC()));
    }

    /** Records the partition's first epoch, as a worker does when it is assigned the partition. */
    static void start(LockStore store, PartitionId partition) {
        store.inPartition(partition, tx -> {
            tx.begin(new StoredPartition(Optional.of("test-topic-id"), PartitionPosition.START, Optional.of(SETTINGS)),
                    EpochOrigin.FIRST_START, "test start");
            return null;
        });
    }

    /** The state after one record acquired {@code resource} for {@code owner} at offset 0, as a batch leaves it. */
    static PartitionState granted(String resource, String owner, Instant now) {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        new PartitionMachine(SETTINGS).step(record("t", 0, resource, "{\"request_id\":\"g-" + owner
                + "\",\"type\":\"acquire\",\"resource\":\"" + resource + "\",\"owner\":\"" + owner
                + "\",\"ttl_seconds\":60}", now), state);
        return state;
    }

    /** @param appendTime the broker's log-append time */
    static Inbound record(String topic, long offset, String resource, String json, Instant appendTime) {
        return new Inbound(topic, 0, offset, resource.getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(appendTime));
    }

    /** A hand-over of {@code resource}, as the worker appends it after the record at {@code after}. */
    static Inbound handOver(String topic, long offset, String resource, long after, Instant appendTime) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HandOver.HEADER, HandOver.headerValue(topic + "-0@" + after, 1, 1));
        return new Inbound(topic, 0, offset, resource.getBytes(StandardCharsets.UTF_8), null,
                InboundHeaders.of(headers), Optional.of(appendTime));
    }

    /** The partition's leases of {@code resources}, as a batch reads them, by resource (a lock's one each). */
    static Map<String, Lease> leases(LockStore store, PartitionId partition, List<String> resources, Instant endingAfter,
            Instant endingBy) {
        Map<String, Lease> byResource = new HashMap<>();
        store.inPartition(partition, tx -> tx.leasesForUpdate(resources, endingAfter, endingBy))
                .forEach(lease -> byResource.put(lease.resource(), lease));
        return byResource;
    }
}
