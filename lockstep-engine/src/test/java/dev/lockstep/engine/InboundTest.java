package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class InboundTest {

    private static ConsumerRecord<byte[], byte[]> record(TimestampType type, long timestamp) {
        return new ConsumerRecord<>("t", 0, 5, timestamp, type, 0, 0, new byte[0], new byte[0], new RecordHeaders(),
                Optional.empty());
    }

    @Test
    void usesTheTimestampOnlyWhenTheBrokerStampedIt() {
        assertThat(Inbound.of(record(TimestampType.LOG_APPEND_TIME, 1_000)).logAppendTime())
                .contains(Instant.ofEpochMilli(1_000));
    }

    @Test
    void ignoresAProducerChosenTimestamp() {
        long year2100 = Instant.parse("2100-01-01T00:00:00Z").toEpochMilli();
        assertThat(Inbound.of(record(TimestampType.CREATE_TIME, year2100)).logAppendTime()).isEmpty();
        assertThat(Inbound.of(record(TimestampType.NO_TIMESTAMP_TYPE, -1)).logAppendTime()).isEmpty();
    }

    @Test
    void theHeadersAreItsOwn() {
        RecordHeaders kafkaHeaders = new RecordHeaders();
        byte[] topic = "lock.replies".getBytes(StandardCharsets.UTF_8);
        kafkaHeaders.add(ReplyRouter.REPLY_TOPIC_HEADER, topic);
        kafkaHeaders.add("no-value", null);
        ConsumerRecord<byte[], byte[]> consumed = new ConsumerRecord<>("t", 0, 5, 1_000, TimestampType.LOG_APPEND_TIME,
                0, 0, new byte[0], new byte[0], kafkaHeaders, Optional.empty());
        Inbound inbound = Inbound.of(consumed);

        // Whoever holds the consumer record, or a value handed out, changes nothing the engine reads.
        topic[0] = 'X';
        kafkaHeaders.add(ReplyRouter.REPLY_TOPIC_HEADER, "lock.replies.other".getBytes(StandardCharsets.UTF_8));
        inbound.headers().lastValue(ReplyRouter.REPLY_TOPIC_HEADER).orElseThrow()[1] = 'X';

        assertThat(inbound.headers().lastValue(ReplyRouter.REPLY_TOPIC_HEADER)).hasValueSatisfying(value ->
                assertThat(new String(value, StandardCharsets.UTF_8)).isEqualTo("lock.replies"));
        assertThat(inbound.headers().has("no-value")).isTrue();
        assertThat(inbound.headers().lastValue("no-value")).isEmpty();
        assertThat(inbound.headers().has("absent")).isFalse();
        assertThat(inbound.headers().toKafka().toArray()).hasSize(2);
    }
}
