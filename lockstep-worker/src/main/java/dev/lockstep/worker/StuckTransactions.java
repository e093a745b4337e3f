package dev.lockstep.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.AbortTransactionOptions;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.DescribeProducersResult;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Aborts a producer's transaction that has held a command partition for longer than the limit.
 *
 * <p>The worker reads committed records only, so every record after an open transaction's first
 * waits for that transaction to end: a transactional producer that died inside one (a Spring
 * {@code KafkaTemplate} with a {@code transactionIdPrefix} whose process was killed) stalls every
 * lock of the partition until the broker's {@code transaction.timeout.ms}, 60 s by default and up
 * to 15 min. Each second this looks at the producers of the partitions this worker applies
 * (Admin {@code describeProducers}), and aborts a transaction it has seen open for the limit
 * (Admin {@code abortTransaction}, KIP-664, what {@code kafka-transactions.sh abort} does). The
 * abort is a marker in the partition, so the log still says which records count: a replay reads
 * the same ones. The age is this worker's own lower bound, from the end of the look that first saw
 * the transaction to the start of the latest, so it never aborts one younger than the limit; a
 * slow look (a partition's leader moving) may make it a few seconds later.
 */
final class StuckTransactions implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StuckTransactions.class);
    private static final Duration CHECK_EVERY = Duration.ofSeconds(1);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(5);
    /** One open transaction of one producer on one partition, as the broker describes it. */
    record OpenTransaction(TopicPartition partition, long producerId, int producerEpoch, long startOffset) {

        @Override
        public String toString() {
            return "producer " + producerId + " (epoch " + producerEpoch + ") on " + partition + " from offset "
                    + startOffset;
        }
    }

    private final Admin admin;
    private final String commandTopic;
    private final Duration limit;
    private final LongSupplier nanoTime;
    private final WorkerHealth health;
    private final Counter aborted;
    private final AssignedPartitions assigned;
    /** Watch thread only: each open transaction seen, and when (nanoTime) it was first seen. */
    private final Map<OpenTransaction, Long> firstSeen = new HashMap<>();
    private final RecentWarnings warnings;
    /** Watch thread only: transactions whose abort failed, told once each (it is tried again each second). */
    private final Set<OpenTransaction> failed = new HashSet<>();
    private volatile Duration longestOpen = Duration.ZERO;
    private ScheduledExecutorService executor;

    StuckTransactions(Admin admin, String commandTopic, AssignedPartitions assigned, Duration limit, Clock clock,
            LongSupplier nanoTime, MeterRegistry registry, WorkerHealth health) {
        this.health = health;
        this.assigned = assigned;
        this.admin = admin;
        this.commandTopic = commandTopic;
        this.limit = limit;
        this.warnings = new RecentWarnings(clock);
        this.nanoTime = nanoTime;
        this.aborted = Counter.builder("lockstep.transactions.aborted")
                .description("Producers' transactions aborted by the worker after holding a command partition for "
                        + "the transaction limit").register(registry);
        Gauge.builder("lockstep.transactions.open.longest", this, watch -> watch.longestOpen.toMillis() / 1000.0)
                .baseUnit("seconds")
                .description("How long the oldest producer's transaction open on a command partition this worker "
                        + "applies has been seen open (0 when none is)").register(registry);
    }

    /** Starts looking, unless the limit is zero: then no transaction is ever aborted. */
    void start() {
        if (limit.isZero()) {
            LOG.info("--transaction-limit 0: producers' transactions are watched, never aborted; an open one holds "
                    + "its partition until the broker ends it");
        }
        executor = AssignedPartitions.every(CHECK_EVERY, "lockstep-transactions", this::checkQuietly);
    }

    /** One look at the assigned partitions' producers; the transactions it aborted. */
    synchronized List<OpenTransaction> checkNow() {
        long lookStarted = nanoTime.getAsLong();
        Look look = look();
        long lookEnded = nanoTime.getAsLong();
        // A transaction not described this time (its partition's leader moving) is still open, as far as anyone knows.
        firstSeen.keySet().removeIf(seen -> !look.open().containsKey(seen)
                && !look.undescribed().contains(seen.partition()));
        failed.retainAll(firstSeen.keySet());
        List<OpenTransaction> done = new ArrayList<>();
        long oldest = 0;
        for (Map.Entry<OpenTransaction, ProducerState> entry : look.open().entrySet()) {
            // Open at some instant of the look that first saw it (no later than its end) and at some
            // instant of this one (no earlier than its start): open at least this long.
            long age = Math.max(0, lookStarted - firstSeen.computeIfAbsent(entry.getKey(), seen -> lookEnded));
            if (!limit.isZero() && age >= limit.toNanos() && abort(entry.getKey(), Duration.ofNanos(age))) {
                done.add(entry.getKey());
                firstSeen.remove(entry.getKey());
            } else {
                oldest = Math.max(oldest, age);
            }
        }
        longestOpen = Duration.ofNanos(oldest);
        health.transactionWarnings(warnings());
        return done;
    }

    /** {@link #checkNow()} on the watch's thread: a failure is logged, and the next look comes as usual. */
    private void checkQuietly() {
        try {
            checkNow();
        } catch (RuntimeException e) {
            LOG.warn("looking for producers' transactions that hold a command partition failed, will look again", e);
        }
    }

    /** The open transactions the broker described, and the partitions it did not describe this time. */
    private record Look(Map<OpenTransaction, ProducerState> open, Set<TopicPartition> undescribed) {
    }

    private Look look() {
        List<TopicPartition> partitions = assigned.now().stream().sorted().map(p -> new TopicPartition(commandTopic, p))
                .toList();
        Map<OpenTransaction, ProducerState> open = new HashMap<>();
        Set<TopicPartition> undescribed = new HashSet<>();
        if (partitions.isEmpty()) {
            return new Look(open, undescribed);
        }
        DescribeProducersResult result = admin.describeProducers(partitions,
                new DescribeProducersOptions().timeoutMs((int) ADMIN_TIMEOUT.toMillis()));
        for (TopicPartition tp : partitions) {
            try {
                for (ProducerState producer : result.partitionResult(tp).get(ADMIN_TIMEOUT.toMillis(),
                        TimeUnit.MILLISECONDS).activeProducers()) {
                    producer.currentTransactionStartOffset().ifPresent(start -> open.put(
                            new OpenTransaction(tp, producer.producerId(), producer.producerEpoch(), start), producer));
                }
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("describing the producers of {} failed, will look again: {}", tp, e.getMessage());
                undescribed.add(tp);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                undescribed.addAll(partitions);
                return new Look(Map.of(), undescribed);
            }
        }
        return new Look(open, undescribed);
    }

    private boolean abort(OpenTransaction transaction, Duration age) {
        if (!assigned.contains(transaction.partition().partition())) {
            return false; // revoked meanwhile: no longer this worker's to abort
        }
        Optional<ProducerState> now = stillOpen(transaction);
        if (now.isEmpty()) {
            return false; // ended, or not described: the producer's next transaction is not this one
        }
        AbortTransactionSpec spec = new AbortTransactionSpec(transaction.partition(), transaction.producerId(),
                (short) transaction.producerEpoch(), now.get().coordinatorEpoch().orElse(0));
        try {
            admin.abortTransaction(spec, new AbortTransactionOptions().timeoutMs((int) ADMIN_TIMEOUT.toMillis()))
                    .all().get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            String text = "a transaction of " + transaction + " has held the partition for " + age.toSeconds()
                    + " s; aborting it failed, will try again: " + e.getMessage();
            if (failed.add(transaction)) {
                LOG.warn(text);
                warnings.add(text);
            } else {
                LOG.debug(text);
            }
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        failed.remove(transaction);
        aborted.increment();
        String text = "aborted the transaction of " + transaction + ", open for " + age.toSeconds()
                + " s or more (the transaction limit is " + limit.toSeconds() + " s): its records do not count";
        LOG.warn(text);
        warnings.add(text);
        return true;
    }

    /** Asked again just before the abort: the same producer, epoch and first offset still open there. */
    private Optional<ProducerState> stillOpen(OpenTransaction transaction) {
        try {
            return admin.describeProducers(List.of(transaction.partition()),
                            new DescribeProducersOptions().timeoutMs((int) ADMIN_TIMEOUT.toMillis()))
                    .partitionResult(transaction.partition()).get(ADMIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .activeProducers().stream()
                    .filter(p -> p.producerId() == transaction.producerId()
                            && p.producerEpoch() == transaction.producerEpoch()
                            && p.currentTransactionStartOffset().equals(OptionalLong.of(transaction.startOffset())))
                    .findFirst();
        } catch (ExecutionException | TimeoutException e) {
            LOG.debug("describing {} again before aborting its transaction failed, will look again: {}",
                    transaction.partition(), e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** What /health says: the aborts and failed aborts of the last ten minutes, with their times. */
    List<String> warnings() {
        return warnings.texts();
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
