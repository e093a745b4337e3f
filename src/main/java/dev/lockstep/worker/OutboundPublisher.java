package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.ReplyRouter;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.TopicNames;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Publishes replies, lease events and dead letters and reports when the broker acknowledged every one of them:
 * the worker commits the command offsets after that, never before.
 */
final class OutboundPublisher {


    private final Producer<byte[], byte[]> producer;
    private final TopicNames topics;
    private final TopicCatalog catalog;
    private final WorkerMetrics metrics;
    private final WorkerHealth health;

    OutboundPublisher(Producer<byte[], byte[]> producer, TopicNames topics, TopicCatalog catalog, WorkerMetrics metrics,
            WorkerHealth health) {
        this.producer = producer;
        this.topics = topics;
        this.catalog = catalog;
        this.metrics = metrics;
        this.health = health;
    }

    /**
     * Hands every record to the producer, in order, and returns at once.
     *
     * @return completes when the broker acknowledged them all, or exceptionally with a
     *     {@link KafkaException} at the first that was not; the caller then retries the batch
     */
    CompletableFuture<Void> send(List<Outbound> outbound) {
        CompletableFuture<Void> acknowledged = new CompletableFuture<>();
        if (outbound.isEmpty()) {
            acknowledged.complete(null);
            return acknowledged;
        }
        AtomicInteger pending = new AtomicInteger(outbound.size());
        for (Outbound sent : outbound) {
            producer.send(toRecord(sent), (metadata, error) -> {
                if (error != null) {
                    metrics.publishFailed();
                    health.publishFailed(error.getMessage());
                    acknowledged.completeExceptionally(new KafkaException(
                            "the broker did not acknowledge a reply: " + error.getMessage(), error));
                    return;
                }
                metrics.published(sent);
                health.published();
                if (pending.decrementAndGet() == 0) {
                    acknowledged.complete(null);
                }
            });
        }
        return acknowledged;
    }

    /** As {@link #send(List)}, waiting for the acknowledgements. */
    void publishAll(List<Outbound> outbound) {
        try {
            send(outbound).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
        }
    }

    /**
     * Why a reply cannot be delivered, when its topic or partition does not exist. That is the
     * cluster's state, not the log's: the command was decided all the same, and instead of
     * stalling the partition on producer metadata, or deciding a dead letter by what this worker
     * saw when, the worker says so in the log.
     */
    private Optional<String> undeliverable(Outbound.ReplyRecord reply) {
        String topic = reply.route().topic();
        OptionalInt partitions = catalog.partitions(topic);
        if (partitions.isEmpty()) {
            return Optional.of("reply topic '" + topic + "' does not exist");
        }
        OptionalInt partition = reply.route().partition();
        if (partition.isPresent() && partition.getAsInt() >= partitions.getAsInt()) {
            return Optional.of(ReplyRouter.REPLY_PARTITION_HEADER + " " + partition.getAsInt()
                    + " is not a partition of '" + topic + "' (it has " + partitions.getAsInt() + ")");
        }
        return Optional.empty();
    }

    /**
     * The command record again, on its own partition, marked with why its reply could not be
     * delivered: the partition's state machine makes the dead letter from it, with the reply
     * ({@code PartitionMachine}), so a replay of the log makes the same one.
     */
    private static ProducerRecord<byte[], byte[]> marker(Outbound.ReplyRecord reply, String reason) {
        Inbound source = reply.source();
        RecordHeaders headers = DeadLetterHeaders.without(source.headers(), DeadLetterHeaders.MARKER);
        headers.add(DeadLetterHeaders.UNDELIVERABLE, reason.getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.REPLY_OF, source.position().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(source.topic(), source.partition(), null, source.key(), source.value(), headers);
    }

    private ProducerRecord<byte[], byte[]> toRecord(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            Optional<String> undeliverable = undeliverable(reply);
            if (undeliverable.isPresent()) {
                return marker(reply, undeliverable.get());
            }
            RecordHeaders headers = new RecordHeaders();
            reply.correlationId().ifPresent(id -> headers.add(ReplyRouter.CORRELATION_HEADER, id));
            Integer partition = reply.route().partition().isPresent() ? reply.route().partition().getAsInt() : null;
            return new ProducerRecord<>(reply.route().topic(), partition, null,
                    reply.requestId().getBytes(StandardCharsets.UTF_8), reply.value(), headers);
        }
        if (out instanceof Outbound.Event event) {
            // The command's partition number: one partition of the events follows one of the commands.
            return new ProducerRecord<>(topics.events(), event.source().partition(), null,
                    event.entry().resource().getBytes(StandardCharsets.UTF_8), event.value());
        }
        Outbound.DeadLetter dead = (Outbound.DeadLetter) out;
        RecordHeaders headers = new RecordHeaders(dead.source().headers().toArray());
        headers.add(DeadLetterHeaders.ERROR, dead.reason().getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.SOURCE, dead.source().position().getBytes(StandardCharsets.UTF_8));
        dead.reply().ifPresent(reply -> headers.add(DeadLetterHeaders.REPLY, reply.value()));
        return new ProducerRecord<>(topics.deadLetters(), null, null, dead.source().key(), dead.source().value(),
                headers);
    }
}
