package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class BacklogTest {

    private static final TopicPartition P0 = new TopicPartition("lock.commands", 0);
    private static final TopicPartition P1 = new TopicPartition("lock.commands", 1);

    private final Backlog backlog = new Backlog();

    private static List<ConsumerRecord<byte[], byte[]>> records(TopicPartition tp, long from, long to) {
        return LongStream.range(from, to).mapToObj(offset -> new ConsumerRecord<>(tp.topic(), tp.partition(), offset,
                new byte[0], new byte[0])).toList();
    }

    private static List<Long> offsets(List<ConsumerRecord<byte[], byte[]>> records) {
        return records.stream().map(ConsumerRecord::offset).toList();
    }

    @Test
    void whatArrivesWhileBusyIsTheNextBatchInOffsetOrder() {
        backlog.add(P0, records(P0, 10, 13));
        backlog.add(P0, records(P0, 13, 15));

        assertThat(backlog.take(P0).map(BacklogTest::offsets)).contains(List.of(10L, 11L, 12L, 13L, 14L));
        assertThat(backlog.take(P0)).as("taken once").isEmpty();
    }

    @Test
    void partitionsAreKeptApart() {
        backlog.add(P0, records(P0, 0, 2));
        backlog.add(P1, records(P1, 7, 8));

        assertThat(backlog.take(P1).map(BacklogTest::offsets)).contains(List.of(7L));
        assertThat(backlog.take(P0).map(BacklogTest::offsets)).contains(List.of(0L, 1L));
    }

    @Test
    void aPartitionIsPausedOnlyOnceItsBacklogReachesTheLimit() {
        assertThat(backlog.add(P0, records(P0, 0, Backlog.LIMIT - 1))).isFalse();
        assertThat(backlog.add(P1, records(P1, 0, Backlog.LIMIT - 1))).as("each partition its own count").isFalse();
        assertThat(backlog.add(P0, records(P0, Backlog.LIMIT - 1, Backlog.LIMIT))).isTrue();
    }

    @Test
    void droppedRecordsAreNotTheNextBatch() {
        backlog.add(P0, records(P0, 0, 3));
        backlog.add(P1, records(P1, 0, 3));

        backlog.drop(List.of(P0));
        assertThat(backlog.take(P0)).isEmpty();
        assertThat(backlog.take(P1)).isPresent();

        backlog.add(P0, records(P0, 5, 6));
        backlog.clear();
        assertThat(backlog.take(P0)).isEmpty();
    }
}
