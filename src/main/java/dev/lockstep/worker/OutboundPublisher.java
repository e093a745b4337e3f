package dev.lockstep.worker;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Publishes replies and dead letters, and returns only once the broker acknowledged every one of
 * them: the worker commits the command offsets after that, never before.
 */
final class OutboundPublisher {

    static final String ERROR_HEADER = "lockstep-error";
    static final String SOURCE_HEADER = "lockstep-source";

    private final Producer<byte[], byte[]> producer;
    private final String deadLetterTopic;

    OutboundPublisher(Producer<byte[], byte[]> producer, String deadLetterTopic) {
        this.producer = producer;
        this.deadLetterTopic = deadLetterTopic;
    }

    /** @throws KafkaException when any record was not acknowledged; the caller retries the batch */
    void publishAll(List<Outbound> outbound) {
        List<Future<RecordMetadata>> acks = new ArrayList<>(outbound.size());
        for (Outbound out : outbound) {
            acks.add(producer.send(toRecord(out)));
        }
        for (Future<RecordMetadata> ack : acks) {
            try {
                ack.get();
            } catch (ExecutionException e) {
                throw new KafkaException("the broker did not acknowledge a reply: " + e.getCause().getMessage(),
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted while waiting for acknowledgements", e);
            }
        }
    }

    private ProducerRecord<byte[], byte[]> toRecord(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            RecordHeaders headers = new RecordHeaders();
            reply.correlationId().ifPresent(id -> headers.add(ReplyRouter.CORRELATION_HEADER, id));
            Integer partition = reply.route().partition().isPresent() ? reply.route().partition().getAsInt() : null;
            return new ProducerRecord<>(reply.route().topic(), partition, null,
                    reply.requestId().getBytes(StandardCharsets.UTF_8), reply.value(), headers);
        }
        Outbound.DeadLetter dead = (Outbound.DeadLetter) out;
        RecordHeaders headers = new RecordHeaders(dead.source().headers().toArray());
        headers.add(ERROR_HEADER, dead.reason().getBytes(StandardCharsets.UTF_8));
        headers.add(SOURCE_HEADER, dead.source().position().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(deadLetterTopic, null, null, dead.source().key(), dead.source().value(), headers);
    }
}
