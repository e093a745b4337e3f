package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.protocol.TopicNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's rules on Kafka's MockProducer, with the engine answering each record: a batch is
 * APPLIED once its transaction ran and its replies were handed over, ACKNOWLEDGED once the broker
 * took them, FAILED when it did not (and a batch started meanwhile releases no offset), BEHIND when
 * the database stood below where this worker saw it; one batch per partition at a time.
 */
class PartitionPipelineTest {

    private static final TopicNames TOPICS = MockPublishing.TOPICS;
    private static final TopicPartition P0 = new TopicPartition(TOPICS.commands(), 0);

    private final MockProducer<byte[], byte[]> producer = MockPublishing.producer();
    private final OutboundPublisher publisher = MockPublishing.publisher(producer);
    private final PartitionMachine machine = MockPublishing.machine();
    /** Stands in for the transaction: each record answered by the engine, or the database found behind. */
    private volatile boolean databaseBehind;
    private final RecordProcessor processor = (partition, records, floor) -> {
        if (databaseBehind) {
            throw new DatabaseBehindException(partition, floor - 1, floor);
        }
        PartitionDriver log = PartitionDriver.log(machine, PartitionState.empty(PartitionPosition.START));
        return records.stream().map(record -> log.apply(record).answer().orElseThrow()).toList();
    };
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final PartitionPipeline pipeline = new PartitionPipeline(processor, publisher, 2,
            new WorkerMetrics(registry, Clock.systemUTC()));

    @AfterEach
    void close() {
        pipeline.close();
    }

    private static List<ConsumerRecord<byte[], byte[]>> statuses(long from, long to) {
        return LongStream.range(from, to).mapToObj(offset -> {
            String json = "{\"request_id\":\"r" + offset + "\",\"type\":\"status\",\"resource\":\"job\"}";
            return new ConsumerRecord<>(TOPICS.commands(), 0, offset, 1_000L + offset, TimestampType.LOG_APPEND_TIME,
                    0, 0, "job".getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8),
                    new RecordHeaders(), Optional.empty());
        }).toList();
    }

    /** Harvests until {@code count} settlements have come. */
    private List<PartitionPipeline.Settled> harvest(int count) {
        List<PartitionPipeline.Settled> settled = new ArrayList<>();
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            settled.addAll(pipeline.harvest());
            return settled.size() >= count;
        });
        return settled;
    }

    @Test
    void aBatchIsAppliedThenAcknowledgedOnceTheBrokerTookItsReplies() {
        pipeline.submit(P0, statuses(0, 3), System.nanoTime(), 0);

        assertThat(harvest(1)).containsExactly(new PartitionPipeline.Settled(P0, 0, 3, PartitionPipeline.Stage.APPLIED));
        assertThat(producer.history()).hasSize(3);
        assertThat(pipeline.harvest()).as("no acknowledgement before the broker's").isEmpty();
        assertThat(pipeline.isBusy()).isTrue();

        while (producer.completeNext()) {
            // the broker takes every reply
        }
        assertThat(harvest(1)).containsExactly(
                new PartitionPipeline.Settled(P0, 0, 3, PartitionPipeline.Stage.ACKNOWLEDGED));
        assertThat(pipeline.isBusy()).isFalse();
        assertThat(registry.get(WorkerMetrics.QUEUE_DURATION).timer().count()).as("batches timed from poll to apply")
                .isEqualTo(1);
        assertThat(registry.get(WorkerMetrics.ACKNOWLEDGE_DURATION).timer().count())
                .as("batches timed from hand-over to acknowledgement").isEqualTo(1);
    }

    @Test
    void aPartitionTakesOneBatchAtATime() {
        pipeline.submit(P0, statuses(0, 2), System.nanoTime(), 0);

        assertThatThrownBy(() -> pipeline.submit(P0, statuses(2, 4), System.nanoTime(), 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("paused");
        assertThat(pipeline.isApplying(P0)).isTrue();
    }

    @Test
    void failedAcknowledgementsSendThePartitionBackAndALaterBatchReleasesNoOffset() {
        pipeline.submit(P0, statuses(0, 2), System.nanoTime(), 0);
        assertThat(harvest(1)).extracting(PartitionPipeline.Settled::stage).containsExactly(PartitionPipeline.Stage.APPLIED);
        // The partition's next batch runs while the first one's replies wait for the broker.
        pipeline.submit(P0, statuses(2, 4), System.nanoTime(), 2);
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 4);

        assertThat(producer.errorNext(new TimeoutException("no acknowledgement"))).isTrue();
        while (producer.completeNext()) {
            // the other replies are acknowledged
        }
        List<PartitionPipeline.Settled> settled = harvest(2);
        settled.addAll(pipeline.awaitAll());

        assertThat(settled).contains(new PartitionPipeline.Settled(P0, 0, 2, PartitionPipeline.Stage.FAILED),
                new PartitionPipeline.Settled(P0, 2, 4, PartitionPipeline.Stage.APPLIED));
        assertThat(settled).as("offsets 2..3 are redone from 0, never released")
                .noneMatch(s -> s.stage() == PartitionPipeline.Stage.ACKNOWLEDGED);
        assertThat(registry.get(WorkerMetrics.ACKNOWLEDGE_DURATION).timer().count())
                .as("a refused publication is not timed as acknowledged").isEqualTo(1);
    }

    @Test
    void aDatabaseBehindThisWorkersFloorIsNotAppliedOn() {
        databaseBehind = true;
        pipeline.submit(P0, statuses(5, 7), System.nanoTime(), 5);

        assertThat(harvest(1)).containsExactly(new PartitionPipeline.Settled(P0, 5, 7, PartitionPipeline.Stage.BEHIND));
        assertThat(producer.history()).as("nothing published").isEmpty();
        assertThat(pipeline.isBusy()).isFalse();
    }
}
