package dev.lockstep.worker;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.StoreException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Runs partition batches on the apply threads, one transaction per thread at a time, each taking
 * the batches that wait when it starts. Under light load a batch starts at once, alone; under
 * heavy load the batches that arrived while every thread was busy share one transaction, so one
 * commit (one flush of the database's log) serves them all, where each would have paid its own.
 * Measured in docs/bench/journal.md.
 *
 * <p>All or nothing across a transaction's partitions: when one partition's batch fails, the
 * transaction is rolled back, that batch fails with its own cause and the others are applied again
 * together without it; when the database itself failed ({@link StoreException#databaseWide}), every
 * batch of the transaction fails with it, at once. Thread-safe.
 */
final class TransactionGroups implements AutoCloseable {

    /** A batch waiting for a thread; {@code result} completes with its acknowledgements once applied. */
    private record Waiting(RecordProcessor.Part part, long polledAt, CompletableFuture<CompletableFuture<Void>> result) {
    }

    private final RecordProcessor processor;
    private final Function<List<Outbound>, CompletableFuture<Void>> publisher;
    private final WorkerMetrics metrics;
    private final ExecutorService executor;
    private final Semaphore threads;
    private final Queue<Waiting> waiting = new ConcurrentLinkedQueue<>();

    /**
     * @param publisher hands a batch's output to the producer, with the broker's acknowledgements
     *     to come ({@link OutboundPublisher#send})
     */
    TransactionGroups(RecordProcessor processor, Function<List<Outbound>, CompletableFuture<Void>> publisher,
            int threads, WorkerMetrics metrics) {
        this.processor = processor;
        this.publisher = publisher;
        this.metrics = metrics;
        this.threads = new Semaphore(threads);
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newFixedThreadPool(threads, r -> {
            Thread thread = new Thread(r, "lockstep-apply-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Applies one partition's batch as soon as a thread is free, with whatever else waits then.
     *
     * @param polledAt {@link System#nanoTime()} when the poll that brought the batch returned
     * @return completes once the batch is applied and its replies handed to the producer, with the
     *     broker's acknowledgements of them; exceptionally when the batch was not applied
     */
    CompletableFuture<CompletableFuture<Void>> submit(PartitionId partition, List<Inbound> records, long floor,
            long polledAt) {
        Waiting batch = new Waiting(new RecordProcessor.Part(partition, records, floor), polledAt,
                new CompletableFuture<>());
        waiting.add(batch);
        dispatch();
        return batch.result();
    }

    /**
     * Starts a transaction on each free thread while batches wait. Called after each submission
     * and by each thread as it comes free, so no batch waits while a thread idles.
     */
    private void dispatch() {
        while (!waiting.isEmpty() && threads.tryAcquire()) {
            List<Waiting> group = take(threads.availablePermits() + 1);
            if (group.isEmpty()) {
                threads.release();
                continue;
            }
            try {
                executor.execute(() -> run(group));
            } catch (RejectedExecutionException e) {
                threads.release();
                group.forEach(batch -> batch.result().completeExceptionally(e));
                return;
            }
        }
    }

    /** The waiting batches spread evenly over the {@code free} threads: this one's share. */
    private List<Waiting> take(int free) {
        int share = Math.max(1, (waiting.size() + free - 1) / free);
        List<Waiting> group = new ArrayList<>(share);
        for (Waiting next; group.size() < share && (next = waiting.poll()) != null;) {
            group.add(next);
        }
        group.sort(Comparator.comparing(batch -> batch.part().partition(), PartitionId.ORDER));
        return group;
    }

    private void run(List<Waiting> group) {
        try {
            long started = System.nanoTime();
            group.forEach(batch -> metrics.queued(Duration.ofNanos(started - batch.polledAt())));
            apply(new ArrayList<>(group));


        } catch (Throwable unexpected) {
            // Whatever happened, no caller waits forever (those already completed keep their result).
            group.forEach(batch -> batch.result().completeExceptionally(unexpected));
            throw unexpected;
        } finally {
            threads.release();
            dispatch();
        }
    }

    private void apply(List<Waiting> group) {
        while (!group.isEmpty()) {
            List<List<Outbound>> out;
            try {
                out = processor.processTogether(group.stream().map(Waiting::part).toList());
            } catch (PartitionFailure e) {
                Waiting failed = group.stream().filter(batch -> batch.part().partition().equals(e.partition()))
                        .findFirst().orElseThrow(() -> new IllegalStateException("a batch outside the group failed", e));
                if (StoreException.databaseWide(e.getCause())) {
                    group.forEach(batch -> batch.result().completeExceptionally(e.getCause()));
                    return;
                }
                // The others did nothing wrong: they go on together, without it.
                failed.result().completeExceptionally(e.getCause());
                group.remove(failed);
                continue;
            } catch (RuntimeException e) {
                group.forEach(batch -> batch.result().completeExceptionally(e));
                return;
            }
            for (int i = 0; i < group.size(); i++) {
                publish(group.get(i), out.get(i));
            }
            return;
        }
    }

    private void publish(Waiting batch, List<Outbound> out) {
        try {
            long sent = System.nanoTime();
            batch.result().complete(publisher.apply(out).whenComplete((ok, error) -> {
                if (error == null) {
                    metrics.acknowledged(Duration.ofNanos(System.nanoTime() - sent));
                }
            }));
        } catch (RuntimeException e) {
            batch.result().completeExceptionally(e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
