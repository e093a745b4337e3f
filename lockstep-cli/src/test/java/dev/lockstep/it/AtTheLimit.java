package dev.lockstep.it;

import dev.lockstep.kafka.KafkaSettings;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Records grown to the largest the command topic takes, found by bisection against the real
 * broker: on a probe topic configured as the command topic is (its limit is the broker's
 * {@code message.max.bytes}, as for the command topic), the part named grows until one byte more
 * is refused. Sent with a producer whose own limit is far above the broker's.
 */
final class AtTheLimit implements AutoCloseable {

    private static final int CEILING = 4 * 1024 * 1024;

    private final KafkaProducer<byte[], byte[]> producer;
    private final String probe;

    private AtTheLimit(KafkaProducer<byte[], byte[]> producer, String probe) {
        this.producer = producer;
        this.probe = probe;
    }

    static AtTheLimit of(KafkaSettings kafka, String probe) throws ExecutionException, InterruptedException {
        try (Admin admin = Admin.create(kafka.with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(probe, 1, (short) 1)
                    .configs(Map.of("message.timestamp.type", "LogAppendTime")))).all().get();
        }
        return new AtTheLimit(new KafkaProducer<>(kafka.with(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 * CEILING, ProducerConfig.LINGER_MS_CONFIG, 0,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 4L * CEILING)), new ByteArraySerializer(), new ByteArraySerializer()),
                probe);
    }

    /**
     * {@code record} with {@code part} ({@code value}, {@code key}, or {@code header:NAME}) grown by
     * as many bytes as the broker takes, and not one more.
     */
    ProducerRecord<byte[], byte[]> grown(ProducerRecord<byte[], byte[]> record, String part) {
        int fits = 0;
        int refused = CEILING;
        while (refused - fits > 1) {
            int middle = (fits + refused) >>> 1;
            if (accepted(grown(record, part, middle))) {
                fits = middle;
            } else {
                refused = middle;
            }
        }
        if (fits == 0 || refused == CEILING) {
            throw new IllegalStateException("no limit found between 0 and " + CEILING + " bytes for " + part);
        }
        return grown(record, part, fits);
    }

    RecordMetadata send(ProducerRecord<byte[], byte[]> record) throws ExecutionException, InterruptedException {
        return producer.send(record).get();
    }

    private boolean accepted(ProducerRecord<byte[], byte[]> record) {
        try {
            producer.send(new ProducerRecord<>(probe, 0, null, record.key(), record.value(), record.headers())).get();
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RecordTooLargeException) {
                return false;
            }
            throw new IllegalStateException("probing the limit failed", e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static ProducerRecord<byte[], byte[]> grown(ProducerRecord<byte[], byte[]> record, String part, int more) {
        byte[] filler = new byte[more];
        Arrays.fill(filler, (byte) 'x');
        RecordHeaders headers = new RecordHeaders(record.headers().toArray());
        byte[] key = record.key();
        byte[] value = record.value();
        if (part.equals("value")) {
            value = concat(value, filler);
        } else if (part.equals("key")) {
            key = concat(key, filler);
        } else if (part.startsWith("header:")) {
            headers.add(part.substring("header:".length()), filler);
        } else {
            throw new IllegalArgumentException("at_limit must be value, key or header:NAME, not " + part);
        }
        return new ProducerRecord<>(record.topic(), record.partition(), null, key, value, headers);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Override
    public void close() {
        producer.close();
    }
}
