package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.StoreException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies partition batches off the poll thread in two stages. <b>Applying</b>: the transaction,
 * then the replies handed to the producer; at most one batch per partition (the worker pauses the
 * partition meanwhile), so per-resource order holds. <b>Acknowledging</b>: the broker's acks for
 * those replies; the partition's next batch is applied meanwhile, and offsets are released in
 * batch order once each batch is acknowledged. A batch whose acks fail is applied again from its
 * first offset, with every later one: the progress row turns that into stored replies sent again.
 * Used by the poll thread only.
 */
final class PartitionPipeline implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionPipeline.class);

    /** What happened to a batch since the last harvest. */
    enum Stage {
        /** Transaction committed, replies sent: the partition may take its next batch. */
        APPLIED,
        /** Replies acknowledged: {@code nextOffset} may be committed. */
        ACKNOWLEDGED,
        /** Applying or acknowledging failed: consume again from {@code firstOffset}. */
        FAILED,
        /**
         * Not applied: the database stands below where this worker saw it ({@link DatabaseBehindException}).
         * The partition must be positioned from the database again.
         */
        BEHIND,
        /**
         * A batch that failed after an earlier one's acknowledgements had: it is redone from the
         * earlier batch's offset, where the worker went back already. The partition is free.
         */
        DISCARDED
    }

    record Settled(TopicPartition partition, long firstOffset, long nextOffset, Stage stage) {
    }

    /** @param epoch the partition's epoch when the batch started; a failed acknowledgement starts a new one */
    private record Batch(CompletableFuture<?> future, long firstOffset, long nextOffset, int epoch) {
    }

    private final RecordProcessor processor;
    private final OutboundPublisher publisher;
    private final ExecutorService executor;
    private final Map<TopicPartition, Batch> applying = new HashMap<>();
    private final Map<TopicPartition, Deque<Batch>> acknowledging = new HashMap<>();
    private final Map<TopicPartition, Integer> epochs = new HashMap<>();
    private final WorkerMetrics metrics;

    PartitionPipeline(RecordProcessor processor, OutboundPublisher publisher, int threads, WorkerMetrics metrics) {
        this.processor = processor;
        this.publisher = publisher;
        this.metrics = metrics;
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread thread = new Thread(r, "lockstep-apply-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    boolean isBusy() {
        return !applying.isEmpty() || !acknowledging.isEmpty();
    }

    /** Whether a batch of the partition is in its applying stage: the partition must stay paused. */
    boolean isApplying(TopicPartition tp) {
        return applying.containsKey(tp);
    }

    /**
     * Starts applying one partition's batch; the caller pauses the partition until it is APPLIED or FAILED.
     *
     * @param polledAt {@link System#nanoTime()} when the poll that brought the batch returned
     * @param floor where the partition's stored position must stand at least ({@link RecordProcessor})
     */
    void submit(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch, long polledAt, long floor) {
        if (applying.containsKey(tp)) {
            throw new IllegalStateException("a batch of " + tp + " is still running; the partition should be paused");
        }
        List<Inbound> records = batch.stream().map(Inbound::of).toList();
        CompletableFuture<CompletableFuture<Void>> future = CompletableFuture.supplyAsync(() -> {
            metrics.queued(Duration.ofNanos(System.nanoTime() - polledAt));
            List<Outbound> out = processor.process(new PartitionId(tp.topic(), tp.partition()), records, floor);
            long sent = System.nanoTime();
            return publisher.send(out).whenComplete((ok, error) -> {
                if (error == null) {
                    metrics.acknowledged(Duration.ofNanos(System.nanoTime() - sent));
                }
            });
        }, executor);
        applying.put(tp, new Batch(future, batch.get(0).offset(), batch.get(batch.size() - 1).offset() + 1,
                epochs.getOrDefault(tp, 0)));
    }

    /** What has moved on since the last call, without waiting. */
    List<Settled> harvest() {
        List<Settled> settled = new ArrayList<>();
        for (TopicPartition tp : List.copyOf(applying.keySet())) {
            if (applying.get(tp).future().isDone()) {
                settled.add(finishApplying(tp));
            }
        }
        for (TopicPartition tp : List.copyOf(acknowledging.keySet())) {
            Deque<Batch> queue = acknowledging.get(tp);
            drainAcknowledged(tp, queue, false, settled);
            if (queue.isEmpty()) {
                acknowledging.remove(tp);
            }
        }
        return settled;
    }

    /** Waits for every batch of these partitions, in both stages (when handing over or stopping). */
    List<Settled> await(Collection<TopicPartition> partitions) {
        Set<TopicPartition> waiting = new HashSet<>(partitions);
        List<Settled> settled = new ArrayList<>();
        for (TopicPartition tp : waiting) {
            if (applying.containsKey(tp)) {
                settled.add(finishApplying(tp));
            }
            Deque<Batch> queue = acknowledging.remove(tp);
            if (queue != null) {
                drainAcknowledged(tp, queue, true, settled);
            }
        }
        return settled;
    }

    /**
     * Settles the queue's batches oldest first: those already acknowledged, or all of them when
     * {@code wait}; a failure ends the queue (the later batches are redone).
     */
    private void drainAcknowledged(TopicPartition tp, Deque<Batch> queue, boolean wait, List<Settled> settled) {
        while (!queue.isEmpty() && (wait || queue.peekFirst().future().isDone())) {
            Settled acked = finishAcknowledging(tp, queue);
            settled.add(acked);
            if (acked.stage() == Stage.FAILED) {
                return;
            }
        }
    }

    List<Settled> awaitAll() {
        Set<TopicPartition> all = new HashSet<>(applying.keySet());
        all.addAll(acknowledging.keySet());
        return await(all);
    }

    private Settled finishApplying(TopicPartition tp) {
        Batch batch = applying.remove(tp);
        try {
            CompletableFuture<?> acks = (CompletableFuture<?>) batch.future().join();
            // A batch that started before an earlier batch's acks failed is redone from that
            // batch's first offset: its own acks must not release any offset.
            if (batch.epoch() == epochs.getOrDefault(tp, 0)) {
                acknowledging.computeIfAbsent(tp, k -> new ArrayDeque<>())
                        .addLast(new Batch(acks, batch.firstOffset(), batch.nextOffset(), batch.epoch()));
            }
            return new Settled(tp, batch.firstOffset(), batch.nextOffset(), Stage.APPLIED);
        } catch (CompletionException e) {
            if (e.getCause() instanceof WorkerStartException refusal) {
                throw refusal; // this worker must stop applying: it would decide by other rules
            }
            if (e.getCause() instanceof DatabaseBehindException behind) {
                LOG.warn("{}; not applying offsets {}..{}: positioning {} from the database again, the records in "
                        + "between are applied once more (same replies, same tokens)", behind.getMessage(),
                        batch.firstOffset(), batch.nextOffset() - 1, tp);
                return new Settled(tp, batch.firstOffset(), batch.nextOffset(), Stage.BEHIND);
            }
            logFailure(tp, batch, e.getCause());
            // A stale batch is redone anyway, from the earlier batch's offset the worker went back to.
            return new Settled(tp, batch.firstOffset(), batch.nextOffset(),
                    batch.epoch() == epochs.getOrDefault(tp, 0) ? Stage.FAILED : Stage.DISCARDED);
        }
    }

    /** Takes the oldest batch of the queue; after a failure the later ones are dropped, they are redone. */
    private Settled finishAcknowledging(TopicPartition tp, Deque<Batch> queue) {
        Batch batch = queue.pollFirst();
        try {
            batch.future().join();
            return new Settled(tp, batch.firstOffset(), batch.nextOffset(), Stage.ACKNOWLEDGED);
        } catch (CompletionException e) {
            logFailure(tp, batch, e.getCause());
            queue.clear();
            epochs.merge(tp, 1, Integer::sum);
            return new Settled(tp, batch.firstOffset(), batch.nextOffset(), Stage.FAILED);
        }
    }

    private static void logFailure(TopicPartition tp, Batch batch, Throwable cause) {
        if (cause instanceof StoreException || cause instanceof KafkaException) {
            LOG.error("batch {} offsets {}..{} failed, will retry: {}", tp, batch.firstOffset(),
                    batch.nextOffset() - 1, cause.getMessage());
        } else {
            LOG.error("batch {} offsets {}..{} failed unexpectedly, will retry", tp, batch.firstOffset(),
                    batch.nextOffset() - 1, cause);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
