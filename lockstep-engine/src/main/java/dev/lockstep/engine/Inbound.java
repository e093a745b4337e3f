package dev.lockstep.engine;

import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;

/**
 * A command record as the worker sees it.
 *
 * @param logAppendTime the record's timestamp only when the broker stamped it; a producer's
 *     timestamp is never carried here
 */
public record Inbound(String topic, int partition, long offset, byte[] key, byte[] value, InboundHeaders headers,
        Optional<Instant> logAppendTime) {

    public static Inbound of(ConsumerRecord<byte[], byte[]> record) {
        Optional<Instant> appendTime = record.timestampType() == TimestampType.LOG_APPEND_TIME
                ? Optional.of(Instant.ofEpochMilli(record.timestamp()))
                : Optional.empty();
        return new Inbound(record.topic(), record.partition(), record.offset(), record.key(), record.value(),
                InboundHeaders.of(record.headers()), appendTime);
    }

    public String position() {
        return topic + "-" + partition + "@" + offset;
    }
}
