package dev.lockstep.worker;

import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.TopicPartition;

/**
 * The worker's gauges and the Kafka clients' own metrics (consumer lag per partition among them),
 * bound to the registry the HTTP server scrapes; closed with the worker.
 */
final class Instruments implements AutoCloseable {

    private final KafkaClientMetrics consumerMetrics;
    private final KafkaClientMetrics producerMetrics;
    private final MeterRegistry registry;
    private final Consumer<byte[], byte[]> consumer;
    /** Records behind the log's end, per assigned partition, as of the last poll. */
    private final Map<TopicPartition, AtomicLong> lag = new ConcurrentHashMap<>();
    private final Map<TopicPartition, Gauge> lagGauges = new HashMap<>();
    private final QueueLengths queueLengths;
    private final Map<TopicPartition, Gauge> queueGauges = new HashMap<>();

    private Instruments(KafkaClientMetrics consumerMetrics, KafkaClientMetrics producerMetrics, MeterRegistry registry,
            Consumer<byte[], byte[]> consumer, QueueLengths queueLengths) {
        this.consumerMetrics = consumerMetrics;
        this.producerMetrics = producerMetrics;
        this.registry = registry;
        this.consumer = consumer;
        this.queueLengths = queueLengths;
    }

    static Instruments bind(MeterRegistry registry, Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
            WorkerHealth health, LockStore store, String commandTopic) {
        KafkaClientMetrics consumerMetrics = new KafkaClientMetrics(consumer);
        consumerMetrics.bindTo(registry);
        KafkaClientMetrics producerMetrics = new KafkaClientMetrics(producer);
        producerMetrics.bindTo(registry);
        Gauge.builder("lockstep.seconds.since.last.poll", health,
                        h -> h.sinceLastPoll().map(Duration::toMillis).orElse(-1000L) / 1000.0)
                .description("Seconds since the poll loop last polled (-1 before the first poll)").register(registry);
        // Asked of the database at each scrape: a NaN while it does not answer.
        Gauge.builder("lockstep.batch.wait", health, h -> h.longestBatchWait().toMillis() / 1000.0)
                .baseUnit("seconds")
                .description("How long the records that have waited longest for their batch to commit have waited "
                        + "(0 when none waits); /health/live fails past the stall timeout")
                .register(registry);
        Gauge.builder("lockstep.locks.held", store, s -> {
            try {
                return s.liveLeases(commandTopic);
            } catch (StoreException e) {
                return Double.NaN;
            }
        }).description("Leases live at their partition's log time, over every partition of the command topic")
                .register(registry);
        Gauge.builder("lockstep.shared.held", store, s -> {
            try {
                return s.liveSharedLeases(commandTopic);
            } catch (StoreException e) {
                return Double.NaN;
            }
        }).description("Of the leases live, the shared ones: semaphores' permits and readers' leases").register(registry);
        Gauge.builder("lockstep.partitions.quarantined", store, s -> {
            try {
                return s.quarantines(commandTopic).size();
            } catch (StoreException e) {
                return Double.NaN;
            }
        }).description("Partitions of the command topic quarantined at their log time: records were gone from the log "
                + "before they were applied, so no lease is granted or renewed there until the longest TTL has passed")
                .register(registry);
        return new Instruments(consumerMetrics, producerMetrics, registry, consumer,
                new QueueLengths(store, commandTopic, Duration.ofSeconds(1), System::nanoTime));
    }

    /**
     * Updates each assigned partition's lag from what the consumer knows locally (no request),
     * gives each a queue-length gauge, and drops the gauges of partitions no longer assigned (so
     * that the workers of a group report each partition once). Poll thread only: the consumer is.
     */
    void afterPoll() {
        Set<TopicPartition> assigned = consumer.assignment();
        for (TopicPartition tp : assigned) {
            OptionalLong behind = consumer.currentLag(tp);
            if (behind.isPresent()) {
                lag.computeIfAbsent(tp, this::lagGauge).set(behind.getAsLong());
            }
            queueGauges.computeIfAbsent(tp, this::queueGauge);
        }
        for (TopicPartition gone : Set.copyOf(lagGauges.keySet())) {
            if (!assigned.contains(gone)) {
                registry.remove(lagGauges.remove(gone));
                lag.remove(gone);
            }
        }
        for (TopicPartition gone : Set.copyOf(queueGauges.keySet())) {
            if (!assigned.contains(gone)) {
                registry.remove(queueGauges.remove(gone));
            }
        }
    }

    private Gauge queueGauge(TopicPartition tp) {
        // Asked of the database at each scrape (at most once a second): NaN while it does not answer.
        return Gauge.builder("lockstep.waiters", queueLengths, lengths -> lengths.of(tp.partition()))
                .description("Acquires waiting in the wait queues, per assigned partition")
                .tag("partition", Integer.toString(tp.partition())).register(registry);
    }

    private AtomicLong lagGauge(TopicPartition tp) {
        AtomicLong value = new AtomicLong();
        lagGauges.put(tp, Gauge.builder("lockstep.consumer.lag", value, AtomicLong::get)
                .description("Command records not yet fetched, per assigned partition (from the consumer's own view)")
                .tag("partition", Integer.toString(tp.partition())).register(registry));
        return value;
    }

    @Override
    public void close() {
        consumerMetrics.close();
        producerMetrics.close();
    }
}
