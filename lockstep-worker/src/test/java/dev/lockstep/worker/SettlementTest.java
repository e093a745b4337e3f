package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.store.PartitionId;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The poll loop's rules for settled batches, on Kafka's MockConsumer: no broker, no database. */
class SettlementTest {

    private static final TopicPartition P0 = new TopicPartition("lock.commands", 0);
    private static final TopicPartition P1 = new TopicPartition("lock.commands", 1);

    /** The assignment as settling sees it: which partitions are positioned, what was committed. */
    private static final class Positions implements Settlement.Positions {
        final Set<TopicPartition> unpositioned = new HashSet<>();
        final Map<TopicPartition, Long> committed = new HashMap<>();

        @Override
        public boolean applicable(TopicPartition tp) {
            return !unpositioned.contains(tp);
        }

        @Override
        public void committed(TopicPartition tp, long nextOffset) {
            committed.put(tp, nextOffset);
        }

        @Override
        public void reposition(Collection<TopicPartition> partitions) {
            unpositioned.addAll(partitions);
        }
    }

    private record Submitted(TopicPartition partition, List<ConsumerRecord<byte[], byte[]>> batch) {
    }

    private final MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
    private final Positions positions = new Positions();
    private final Backlog backlog = new Backlog();
    private final OffsetCommits commits = new OffsetCommits(consumer);
    private final Map<PartitionId, Long> acknowledged = new ConcurrentHashMap<>();
    private final List<Submitted> submitted = new ArrayList<>();
    private final Set<TopicPartition> applying = new HashSet<>();
    private Settlement settlement;

    @BeforeEach
    void assignTwoPausedPartitions() {
        consumer.assign(List.of(P0, P1));
        consumer.updateBeginningOffsets(Map.of(P0, 0L, P1, 0L));
        consumer.seek(P0, 20);
        consumer.seek(P1, 20);
        consumer.pause(List.of(P0, P1));
        WorkerHealth health = new WorkerHealth(Clock.systemUTC(), Duration.ofMinutes(5), Duration.ofMinutes(2),
                new StubStore(), "lock.commands");
        settlement = new Settlement(consumer, positions, backlog, commits, health, acknowledged);
    }

    private boolean settle(PartitionPipeline.Settled... settled) {
        return settlement.settle(List.of(settled), applying::contains, (tp, batch, polledAt) -> {
            submitted.add(new Submitted(tp, batch));
            applying.add(tp);
        });
    }

    private static PartitionPipeline.Settled batch(TopicPartition tp, long first, long next, PartitionPipeline.Stage stage) {
        return new PartitionPipeline.Settled(tp, first, next, stage);
    }

    private static List<ConsumerRecord<byte[], byte[]>> records(TopicPartition tp, long from, long to) {
        return LongStream.range(from, to).mapToObj(offset -> new ConsumerRecord<>(tp.topic(), tp.partition(), offset,
                new byte[0], new byte[0])).toList();
    }

    @Test
    void anAppliedBatchTakesWhatArrivedMeanwhileAsItsNextBatch() {
        backlog.add(P0, records(P0, 5, 8));

        assertThat(settle(batch(P0, 0, 5, PartitionPipeline.Stage.APPLIED))).as("nothing failed").isFalse();

        assertThat(submitted).singleElement().satisfies(next -> {
            assertThat(next.partition()).isEqualTo(P0);
            assertThat(next.batch()).extracting(ConsumerRecord::offset).containsExactly(5L, 6L, 7L);
        });
        assertThat(positions.committed).containsEntry(P0, 5L);
        assertThat(consumer.paused()).as("its next batch is applying: it stays paused").contains(P0);
    }

    @Test
    void anAppliedBatchWithNothingWaitingResumesItsPartition() {
        settle(batch(P0, 0, 5, PartitionPipeline.Stage.APPLIED));

        assertThat(submitted).isEmpty();
        assertThat(consumer.paused()).doesNotContain(P0).contains(P1);
    }

    @Test
    void aFailedBatchGoesBackToItsFirstOffsetWithoutItsBacklogAndTheLoopBacksOff() {
        backlog.add(P0, records(P0, 8, 12));

        assertThat(settle(batch(P0, 3, 8, PartitionPipeline.Stage.FAILED))).isTrue();

        assertThat(consumer.position(P0)).isEqualTo(3);
        assertThat(backlog.take(P0)).as("fetched again from offset 3").isEmpty();
        assertThat(consumer.paused()).doesNotContain(P0);
        assertThat(acknowledged).isEmpty();
    }

    /** A batch that applied in the round its partition failed is stale: its backlog must not start. */
    @Test
    void aFailureInTheSameRoundDropsTheBacklogOfABatchThatApplied() {
        backlog.add(P0, records(P0, 10, 12));

        assertThat(settle(batch(P0, 5, 10, PartitionPipeline.Stage.APPLIED),
                batch(P0, 3, 5, PartitionPipeline.Stage.FAILED))).isTrue();

        assertThat(submitted).isEmpty();
        assertThat(consumer.position(P0)).isEqualTo(3);
    }

    @Test
    void aPartitionWhoseDatabaseStoodBehindIsPositionedAgainAndStaysPaused() {
        backlog.add(P1, records(P1, 10, 12));

        assertThat(settle(batch(P1, 5, 10, PartitionPipeline.Stage.BEHIND))).as("not a failure: no back-off")
                .isFalse();

        assertThat(positions.unpositioned).containsExactly(P1);
        assertThat(backlog.take(P1)).isEmpty();
        assertThat(consumer.paused()).contains(P1);
    }

    @Test
    void acknowledgedBatchesRaiseTheAcknowledgedOffsetAndAreCommitted() {
        settle(batch(P0, 0, 5, PartitionPipeline.Stage.ACKNOWLEDGED), batch(P1, 0, 9, PartitionPipeline.Stage.ACKNOWLEDGED));
        settle(batch(P0, 5, 7, PartitionPipeline.Stage.ACKNOWLEDGED));
        commits.commitAll();

        assertThat(acknowledged).containsEntry(new PartitionId("lock.commands", 0), 7L)
                .containsEntry(new PartitionId("lock.commands", 1), 9L);
        assertThat(consumer.committed(Set.of(P0, P1))).satisfies(committed -> {
            assertThat(committed.get(P0).offset()).isEqualTo(7);
            assertThat(committed.get(P1).offset()).isEqualTo(9);
        });
        assertThat(consumer.paused()).as("an acknowledgement frees no partition").contains(P0, P1);
    }

    @Test
    void aDiscardedBatchFreesItsPartitionWithoutCommitting() {
        settle(batch(P0, 5, 9, PartitionPipeline.Stage.DISCARDED));
        commits.commitAll();

        assertThat(consumer.paused()).doesNotContain(P0);
        assertThat(consumer.committed(Set.of(P0))).isEmpty();
    }

    @Test
    void aPartitionNoLongerAssignedOrNotPositionedIsNotResumed() {
        positions.unpositioned.add(P1);
        consumer.assign(List.of(P1));
        consumer.pause(List.of(P1));

        settle(batch(P0, 0, 5, PartitionPipeline.Stage.APPLIED), batch(P1, 0, 5, PartitionPipeline.Stage.APPLIED));

        // MockConsumer keeps P0's pause across the reassignment; a resume of it would lift it (and a
        // real consumer would throw, resuming a partition it does not hold).
        assertThat(consumer.paused()).containsExactlyInAnyOrder(P0, P1);
        assertThat(positions.committed).containsKeys(P0, P1);
    }
}
