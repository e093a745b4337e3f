package dev.lockstep.worker;

import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.Limits;
import dev.lockstep.store.LockStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** Builds batch processors and command records for tests that drive the store without Kafka. */
final class Batches {

    private Batches() {
    }

    /** A processor with the default limits and allow-list, whose every reply topic exists. */
    static BatchProcessor processor(LockStore store) {
        ReplyRouter router = new ReplyRouter("lock.replies", new TopicAllowList(TopicAllowList.DEFAULT),
                topic -> OptionalInt.of(1));
        return new BatchProcessor(store, new Triage(new CommandDecoder(Limits.defaults()), router), Clock.systemUTC());
    }

    /** @param appendTime the broker's log-append time, or empty for the worker's clock */
    static Inbound record(String topic, long offset, String resource, String json, Optional<Instant> appendTime) {
        return new Inbound(topic, 0, offset, resource.getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), new RecordHeaders(), appendTime);
    }
}
