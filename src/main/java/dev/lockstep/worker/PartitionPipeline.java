package dev.lockstep.worker;

import dev.lockstep.store.PartitionId;
import dev.lockstep.store.StoreException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * Applies partition batches off the poll thread, at most one batch per partition at a time (the
 * worker pauses a partition while its batch runs), so per-resource order holds while different
 * partitions' transactions and acknowledgements overlap, and the poll loop keeps feeding the
 * partitions that are free. Used by the poll thread only.
 */
final class PartitionPipeline implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionPipeline.class);

    /** A batch that finished: applied and acknowledged ({@code ok}), or to be retried from {@code firstOffset}. */
    record Settled(TopicPartition partition, long firstOffset, long nextOffset, boolean ok) {
    }

    private record InFlight(CompletableFuture<Void> future, long firstOffset, long nextOffset) {
    }

    private final RecordProcessor processor;
    private final OutboundPublisher publisher;
    private final ExecutorService executor;
    private final Map<TopicPartition, InFlight> inFlight = new HashMap<>();

    PartitionPipeline(RecordProcessor processor, OutboundPublisher publisher, int threads) {
        this.processor = processor;
        this.publisher = publisher;
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread thread = new Thread(r, "lockstep-apply-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    boolean isBusy() {
        return !inFlight.isEmpty();
    }

    /** Starts applying one partition's batch; the caller pauses the partition until it settles. */
    void submit(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> batch) {
        if (inFlight.containsKey(tp)) {
            throw new IllegalStateException("a batch of " + tp + " is still running; the partition should be paused");
        }
        List<Inbound> records = batch.stream().map(Inbound::of).toList();
        CompletableFuture<Void> future = CompletableFuture.runAsync(() -> publisher.publishAll(
                processor.process(new PartitionId(tp.topic(), tp.partition()), records)), executor);
        inFlight.put(tp, new InFlight(future, batch.get(0).offset(), batch.get(batch.size() - 1).offset() + 1));
    }

    /** The batches that have finished since the last call, without waiting. */
    List<Settled> harvest() {
        List<TopicPartition> finished = inFlight.entrySet().stream()
                .filter(e -> e.getValue().future().isDone())
                .map(Map.Entry::getKey)
                .toList();
        return settle(finished);
    }

    /** Waits for the batches of these partitions (all, when handing over or stopping). */
    List<Settled> await(Collection<TopicPartition> partitions) {
        List<TopicPartition> waiting = new ArrayList<>(partitions);
        waiting.retainAll(inFlight.keySet());
        return settle(waiting);
    }

    List<Settled> awaitAll() {
        return await(List.copyOf(inFlight.keySet()));
    }

    private List<Settled> settle(List<TopicPartition> partitions) {
        List<Settled> settled = new ArrayList<>(partitions.size());
        for (TopicPartition tp : partitions) {
            InFlight batch = inFlight.remove(tp);
            boolean ok;
            try {
                batch.future().join();
                ok = true;
            } catch (CompletionException e) {
                Throwable cause = e.getCause();
                if (cause instanceof StoreException || cause instanceof KafkaException) {
                    LOG.error("batch {} offsets {}..{} failed, will retry: {}", tp, batch.firstOffset(),
                            batch.nextOffset() - 1, cause.getMessage());
                } else {
                    LOG.error("batch {} offsets {}..{} failed unexpectedly, will retry", tp, batch.firstOffset(),
                            batch.nextOffset() - 1, cause);
                }
                ok = false;
            }
            settled.add(new Settled(tp, batch.firstOffset(), batch.nextOffset(), ok));
        }
        return settled;
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
