package dev.lockstep.worker;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.TopicNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the worker loop's unit tests publish with: Kafka's MockProducer (acknowledged only when the
 * test says), the worker's publisher on it with every topic present, and the engine on one partition.
 */
final class MockPublishing {

    static final TopicNames TOPICS = TopicNames.DEFAULT;

    private MockPublishing() {
    }

    static MockProducer<byte[], byte[]> producer() {
        return new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
    }

    static OutboundPublisher publisher(MockProducer<byte[], byte[]> producer) {
        return publisher(producer, name -> Optional.of(new TopicCatalog.Topic(1, 1_048_588)));
    }

    static OutboundPublisher publisher(MockProducer<byte[], byte[]> producer, TopicCatalog catalog) {
        return new OutboundPublisher(producer, TOPICS, catalog, 1_048_576, new WorkerMetrics(new SimpleMeterRegistry(), Clock.systemUTC()),
                new WorkerHealth(Clock.systemUTC(), Duration.ofMinutes(5), Duration.ofMinutes(2), new StubStore(), "lock.commands"));
    }

    static PartitionMachine machine() {
        return new PartitionMachine(new EngineSettings(Limits.defaults(), Duration.ofHours(24),
                new TopicAllowList(TopicAllowList.DEFAULT), TOPICS.replies(), 1));
    }
}
