package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.ReplyRouter;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.TopicNames;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes replies, lease events, dead letters and hand-overs and reports when the broker acknowledged every one of them:
 * the worker commits the command offsets after that, never before.
 *
 * <p>Everything it writes fits its topic ({@code max.message.bytes}, as the cluster says, and the
 * producer's {@code max.request.size}): a reply that does not is marked undeliverable like one to a
 * missing topic; a dead letter or a mark, a copy of a record that may itself be at the command
 * topic's limit, is cut to fit ({@link RecordFit}). A record the broker still refuses as too large
 * is written once in its smaller form instead, never retried as it was: a batch retried forever on
 * one record would stall its whole partition.
 */
final class OutboundPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(OutboundPublisher.class);
    /** What a mark keeps of the record's headers, whatever it has to cut: the state machine reads these. */
    private static final Set<String> MARK_KEEPS = Set.of(DeadLetterHeaders.UNDELIVERABLE, DeadLetterHeaders.REPLY_OF,
            DeadLetterHeaders.REPLY_REQUEST, ReplyRouter.REPLY_TOPIC_HEADER, ReplyRouter.REPLY_PARTITION_HEADER, ReplyRouter.CORRELATION_HEADER);
    /** What a dead letter keeps, whatever it has to cut: the worker's headers, its own and a mark's. */
    private static final Set<String> DEAD_LETTER_KEEPS = DeadLetterHeaders.ADDED;

    private final Producer<byte[], byte[]> producer;
    private final TopicNames topics;
    private final TopicCatalog catalog;
    private final int maxRequestSize;
    private final WorkerMetrics metrics;
    private final WorkerHealth health;
    /** Where a smaller form is written instead: its thread is started by the first such record, if any. */
    private final Executor instead = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "lockstep-publish-instead");
        thread.setDaemon(true);
        return thread;
    });

    /** @param maxRequestSize the producer's {@code max.request.size}: no record may be larger either */
    OutboundPublisher(Producer<byte[], byte[]> producer, TopicNames topics, TopicCatalog catalog, int maxRequestSize,
            WorkerMetrics metrics, WorkerHealth health) {
        this.producer = producer;
        this.topics = topics;
        this.catalog = catalog;
        this.maxRequestSize = maxRequestSize;
        this.metrics = metrics;
        this.health = health;
    }

    /** One record to write, and the smaller one written instead if the broker refuses it as it is (made then). */
    private record Attempt(ProducerRecord<byte[], byte[]> record,
            Optional<Supplier<ProducerRecord<byte[], byte[]>>> instead) {
    }

    /**
     * Hands every record to the producer, in order, and returns at once.
     *
     * @return completes when the broker acknowledged them all, or exceptionally with a
     *     {@link KafkaException} at the first that was not; the caller then retries the batch
     */
    CompletableFuture<Void> send(List<Outbound> outbound) {
        CompletableFuture<?>[] acks = new CompletableFuture<?>[outbound.size()];
        for (int i = 0; i < acks.length; i++) {
            Outbound sent = outbound.get(i);
            if (sent instanceof Outbound.Transfer) {
                // Stored with its batch and sent by the growth keeper, takens after their carries.
                acks[i] = CompletableFuture.completedFuture(null);
                continue;
            }
            acks[i] = write(attempt(sent)).thenRun(() -> {
                metrics.published(sent);
                health.published();
            });
        }
        return CompletableFuture.allOf(acks);
    }

    /** As {@link #send(List)}, waiting for the acknowledgements. */
    void publishAll(List<Outbound> outbound) {
        try {
            send(outbound).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
        }
    }

    private CompletableFuture<Void> write(Attempt attempt) {
        // Off the producer's I/O thread, where its callback runs: a send that waits there for
        // metadata (the command topic, for a mark) would wait for the very thread that fetches it.
        return produce(attempt.record()).exceptionallyComposeAsync(error -> {
            if (attempt.instead().isPresent() && refusedAsItIs(error)) {
                LOG.warn("{} refused a record of {} bytes ({}); writing its smaller form instead",
                        attempt.record().topic(), RecordFit.size(attempt.record()), error.getMessage());
                return produce(attempt.instead().get().get());
            }
            return CompletableFuture.failedFuture(error);
        }, instead).exceptionallyCompose(error -> {
            metrics.publishFailed();
            health.publishFailed(error.getMessage());
            return CompletableFuture.failedFuture(new KafkaException("the broker did not acknowledge a reply: "
                    + error.getMessage(), error));
        });
    }

    private CompletableFuture<Void> produce(ProducerRecord<byte[], byte[]> record) {
        CompletableFuture<Void> acknowledged = new CompletableFuture<>();
        try {
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    acknowledged.completeExceptionally(error);
                } else {
                    acknowledged.complete(null);
                }
            });
        } catch (KafkaException e) {
            acknowledged.completeExceptionally(e);
        }
        return acknowledged;
    }

    /**
     * The broker (or the producer) will never take this record as it is, however often it is
     * sent: it is larger than the topic takes. Any other refusal (a timestamp, an authorization,
     * a topic gone) is the cluster's to mend, and the batch is retried meanwhile, health saying so.
     */
    private static boolean refusedAsItIs(Throwable error) {
        return error instanceof RecordTooLargeException || error instanceof RecordBatchTooLargeException;
    }

    private Attempt attempt(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            Optional<String> undeliverable = undeliverable(reply);
            if (undeliverable.isPresent()) {
                return markOf(reply, undeliverable.get());
            }
            return new Attempt(replyRecord(reply), Optional.of(() -> markOf(reply,
                    "the broker refused the reply as too large for " + reply.route().topic())
                    .record()));
        }
        if (out instanceof Outbound.Event event) {
            // The command's partition number: one partition of the events follows one of the commands.
            // Bounded by the protocol's limits, far below the smallest topic limit the worker starts with.
            return new Attempt(new ProducerRecord<>(topics.events(), event.source().partition(), null,
                    event.entry().resource().getBytes(StandardCharsets.UTF_8), event.value()), Optional.empty());
        }
        if (out instanceof Outbound.HandOver handOver) {
            return new Attempt(HandOvers.record(handOver.source().topic(), handOver.source().partition(),
                    handOver.resource(), handOver.source().position(), handOver.index(), handOver.count()),
                    Optional.empty());
        }
        Outbound.DeadLetter dead = (Outbound.DeadLetter) out;
        RecordHeaders headers = dead.source().headers().toKafka();
        headers.add(DeadLetterHeaders.ERROR, dead.reason().getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.SOURCE, dead.source().position().getBytes(StandardCharsets.UTF_8));
        dead.reply().ifPresent(reply -> headers.add(DeadLetterHeaders.REPLY, reply.value()));
        ProducerRecord<byte[], byte[]> whole = new ProducerRecord<>(topics.deadLetters(), null, null,
                dead.source().key(), dead.source().value(), headers);
        return new Attempt(RecordFit.fit(whole, limit(topics.deadLetters()), DEAD_LETTER_KEEPS,
                RecordFit.Order.VALUE_FIRST), Optional.of(() -> RecordFit.fit(whole, 0, DEAD_LETTER_KEEPS,
                RecordFit.Order.VALUE_FIRST)));
    }

    private static ProducerRecord<byte[], byte[]> replyRecord(Outbound.ReplyRecord reply) {
        RecordHeaders headers = new RecordHeaders();
        reply.correlationId().ifPresent(id -> headers.add(ReplyRouter.CORRELATION_HEADER, id));
        Integer partition = reply.route().partition().isPresent() ? reply.route().partition().getAsInt() : null;
        return new ProducerRecord<>(reply.route().topic(), partition, null,
                reply.requestId().getBytes(StandardCharsets.UTF_8), reply.value(), headers);
    }

    /**
     * Why a reply cannot be delivered: its topic or partition does not exist, or it does not fit
     * the topic. That is the cluster's state, not the log's: the command was decided all the same,
     * and instead of stalling the partition, or deciding a dead letter by what this worker saw
     * when, the worker says so in the log.
     */
    private Optional<String> undeliverable(Outbound.ReplyRecord reply) {
        String topic = reply.route().topic();
        Optional<TopicCatalog.Topic> found = catalog.topic(topic);
        if (found.isEmpty()) {
            return Optional.of("reply topic '" + topic + "' does not exist");
        }
        OptionalInt partition = reply.route().partition();
        if (partition.isPresent() && partition.getAsInt() >= found.get().partitions()) {
            return Optional.of(ReplyRouter.REPLY_PARTITION_HEADER + " " + partition.getAsInt()
                    + " is not a partition of '" + topic + "' (it has " + found.get().partitions() + ")");
        }
        int size = RecordFit.size(replyRecord(reply));
        int limit = Math.min(found.get().maxMessageBytes(), maxRequestSize);
        if (size > limit) {
            return Optional.of("the reply (" + size + " bytes) does not fit '" + topic + "' (max.message.bytes "
                    + found.get().maxMessageBytes() + ", max.request.size " + maxRequestSize + ")");
        }
        return Optional.empty();
    }

    /**
     * The command record again, on its own partition, marked with why its reply could not be
     * delivered: the partition's state machine makes the dead letter from it, with the reply
     * ({@code PartitionMachine}), so a replay of the log makes the same one. Cut to fit the command
     * topic if it must be: a record at its limit does not fit again with the mark's headers.
     */
    private Attempt markOf(Outbound.ReplyRecord reply, String reason) {
        if (reply.deferred()) {
            return waiterMarkOf(reply, reason);
        }
        Inbound source = reply.source();
        RecordHeaders headers = DeadLetterHeaders.without(source.headers().toKafka(), DeadLetterHeaders.MARKER);
        headers.add(DeadLetterHeaders.UNDELIVERABLE, reason.getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.REPLY_OF, source.position().getBytes(StandardCharsets.UTF_8));
        ProducerRecord<byte[], byte[]> whole = new ProducerRecord<>(source.topic(), source.partition(), null,
                source.key(), source.value(), headers);
        return new Attempt(RecordFit.fit(whole, limit(source.topic()), MARK_KEEPS, RecordFit.Order.HEADERS_FIRST),
                Optional.of(() -> RecordFit.fit(whole, 0, MARK_KEEPS, RecordFit.Order.HEADERS_FIRST)));
    }

    /**
     * The mark of a reply to an acquire that waited: that acquire is not at hand, so the mark is no
     * copy but names it, with the reply's request ID and route ({@link DeadLetterHeaders#REPLY_REQUEST}).
     * Small (an ID, a route, a reason), so cut only of a long reason.
     */
    private Attempt waiterMarkOf(Outbound.ReplyRecord reply, String reason) {
        Inbound source = reply.source();
        RecordHeaders headers = new RecordHeaders();
        headers.add(DeadLetterHeaders.UNDELIVERABLE, reason.getBytes(StandardCharsets.UTF_8));
        headers.add(DeadLetterHeaders.REPLY_OF, (source.topic() + "-" + source.partition() + "@"
                + reply.requestOffset()).getBytes(StandardCharsets.UTF_8));
        byte[] requestId = reply.requestId().getBytes(StandardCharsets.UTF_8);
        headers.add(DeadLetterHeaders.REPLY_REQUEST, requestId);
        headers.add(ReplyRouter.REPLY_TOPIC_HEADER, reply.route().topic().getBytes(StandardCharsets.UTF_8));
        reply.route().partition().ifPresent(partition -> headers.add(ReplyRouter.REPLY_PARTITION_HEADER,
                ByteBuffer.allocate(Integer.BYTES).putInt(partition).array()));
        reply.correlationId().ifPresent(id -> headers.add(ReplyRouter.CORRELATION_HEADER, id));
        ProducerRecord<byte[], byte[]> whole = new ProducerRecord<>(source.topic(), source.partition(), null,
                requestId, new byte[0], headers);
        return new Attempt(RecordFit.fit(whole, limit(source.topic()), MARK_KEEPS, RecordFit.Order.HEADERS_FIRST),
                Optional.of(() -> RecordFit.fit(whole, 0, MARK_KEEPS, RecordFit.Order.HEADERS_FIRST)));
    }

    /** The largest record the topic and the producer take; the producer's alone for a topic not found. */
    private int limit(String topic) {
        return catalog.topic(topic).map(t -> Math.min(t.maxMessageBytes(), maxRequestSize)).orElse(maxRequestSize);
    }
}
