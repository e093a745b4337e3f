package dev.lockstep.worker;

import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.protocol.Tick;
import dev.lockstep.store.DueHandOver;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends a tick ({@link Tick}) every {@link #INTERVAL} to each command partition of this worker
 * where something dated may still be live (a lease, a wait, a quarantine): the partition's time
 * passes only at ticks ({@link dev.lockstep.engine.Timekeeping.Anchored}), by what this worker
 * measured on its monotonic clock from its previous tick's acknowledgement there to this tick's
 * send, never by more than the broker's clock moved between the two. So a lease's {@code expired}
 * event follows its end by about {@link #INTERVAL}, and no end comes sooner than real time
 * reaches it, whatever the leader's clock does.
 *
 * <p>One tick per partition is in flight at a time, so that each measures from the last: a tick
 * that measured from another is taken for a stranger's and moves time not at all. A partition
 * whose database applied nothing since the last tick, which is not applied yet, gets no other
 * until it does (or for {@link #RESEND_AFTER}): no stream of ticks where nothing applies them.
 * Acknowledgements also tell {@link LogTimes} the leader's clock, for {@link ClockWatch}.
 *
 * <p>It also appends a hand-over ({@link dev.lockstep.protocol.HandOver}) again where one is due
 * but did not come: the publisher appends each at once, after the batch that made it due, so the
 * ticker only covers one lost with a failed send or a crash, after {@link #RESEND_AFTER}.
 *
 * <p>Runs on a thread of its own, off the command path.
 */
final class Ticker implements AutoCloseable {

    /** How often a partition with time to keep is ticked: the bound on an expiry event's delay. */
    static final Duration INTERVAL = PartitionDriver.INTERVAL;
    /** The engine's model of this ticker ({@link PartitionDriver}) appends a hand-over again after the same time. */
    static final Duration RESEND_AFTER = PartitionDriver.RESEND_AFTER;

    private static final Logger LOG = LoggerFactory.getLogger(Ticker.class);

    /** This worker's last tick on a partition that was acknowledged: its offset, and when (monotonic). */
    private record Acknowledged(long offset, long nanos) {
    }

    private final LockStore store;
    private final Producer<byte[], byte[]> producer;
    private final String commandTopic;
    private final Clock clock;
    private final LogTimes logTimes;
    private final ClockWatch clockWatch;
    private final WorkerMetrics metrics;
    private final AssignedPartitions assigned;
    private final Map<Integer, Acknowledged> acknowledged = new ConcurrentHashMap<>();
    /** When (monotonic) each partition's tick in flight was sent. */
    private final Map<Integer, Long> inFlight = new ConcurrentHashMap<>();
    /** How far each partition was applied when this worker last ticked it. */
    private final Map<Integer, Long> appliedAtTick = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** Each hand-over due, and when (the worker's clock) it was first seen due or last appended again. */
    private final Map<DueHandOver, Instant> handOvers = new HashMap<>();
    private ScheduledExecutorService executor;

    /**
     * @param clock the worker's steady clock: how long a hand-over has been due
     * @param logTimes told each tick's log-append time, and the source of the monotonic clock ticks measure by
     */
    Ticker(LockStore store, Producer<byte[], byte[]> producer, String commandTopic, AssignedPartitions assigned,
            Clock clock, LogTimes logTimes, ClockWatch clockWatch, WorkerMetrics metrics) {
        this.store = store;
        this.assigned = assigned;
        this.producer = producer;
        this.commandTopic = commandTopic;
        this.clock = clock;
        this.logTimes = logTimes;
        this.clockWatch = clockWatch;
        this.metrics = metrics;
    }

    void start() {
        executor = AssignedPartitions.every(INTERVAL, "lockstep-ticker", this::tickNow);
    }

    /**
     * One round: a tick to each partition with time to keep that has none in flight, and each
     * hand-over due for a while appended again; how many records it appended.
     */
    synchronized int tickNow() {
        try {
            int appended = ticks() + handOversAgain(clock.instant());
            clockWatch.report();
            return appended;
        } catch (RuntimeException e) {
            // The schedule stops for good on a task that throws: time would stand still.
            LOG.warn("a round of ticks failed, the next follows: {}", e.toString());
            return 0;
        }
    }

    private int ticks() {
        Map<Integer, Long> keeping;
        try {
            keeping = store.partitionsWithTimeToKeep(commandTopic, assigned.now());
        } catch (StoreException e) {
            LOG.debug("looking for partitions with time to keep failed, will look again: {}", e.getMessage());
            return 0;
        }
        int ticks = 0;
        for (Map.Entry<Integer, Long> partition : keeping.entrySet()) {
            if (!closed && due(partition.getKey(), partition.getValue(), logTimes.nanos())) {
                appliedAtTick.put(partition.getKey(), partition.getValue());
                append(partition.getKey());
                ticks++;
            }
        }
        return ticks;
    }

    /**
     * Whether a partition gets a tick now: none of its is in flight (a send always ends, the
     * producer's delivery timeout bounds it), and the database applied its last tick, or applied
     * something since it was sent (a partition behind a backlog keeps its time), or that tick was
     * acknowledged {@link #RESEND_AFTER} ago: one that applies nothing gets no stream of ticks.
     */
    private boolean due(int partition, long appliedTo, long now) {
        if (inFlight.containsKey(partition)) {
            return false;
        }
        Acknowledged last = acknowledged.get(partition);
        return last == null || last.offset() < appliedTo || appliedAtTick.getOrDefault(partition, -1L) != appliedTo
                || now - last.nanos() >= RESEND_AFTER.toNanos();
    }

    /** Waits up to {@code patience} for the ticks in flight to be acknowledged; whether they were. */
    boolean awaitQuiet(Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!inFlight.isEmpty() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return inFlight.isEmpty();
    }

    /**
     * A hand-over seen due for {@link #RESEND_AFTER} (the run the publisher appended, lost) is
     * appended again, alone: a run of one, which asks for the next run when it has granted.
     */
    private int handOversAgain(Instant now) {
        List<DueHandOver> due;
        try {
            due = store.handOversDue(commandTopic, assigned.now());
        } catch (StoreException e) {
            LOG.debug("looking for hand-overs due failed, will look again: {}", e.getMessage());
            return 0;
        }
        handOvers.keySet().retainAll(due);
        int again = 0;
        for (DueHandOver handOver : due) {
            Instant since = handOvers.putIfAbsent(handOver, now);
            if (since != null && !closed && !now.isBefore(since.plus(RESEND_AFTER))) {
                appendHandOver(handOver);
                handOvers.put(handOver, now);
                again++;
            }
        }
        return again;
    }

    private void appendHandOver(DueHandOver due) {
        long sent = logTimes.nanos();
        producer.send(HandOvers.record(commandTopic, due.partition(), due.resource(),
                commandTopic + "-" + due.partition() + "@" + due.afterOffset(), 1, 1), (metadata, error) -> {
                    if (error == null) {
                        acknowledged(due.partition(), metadata, sent);
                        metrics.handedOverAgain();
                    } else {
                        LOG.warn("a hand-over to {}-{} was not appended (another follows): {}", commandTopic,
                                due.partition(), error.getMessage());
                    }
                });
    }

    private void append(int partition) {
        long sent = logTimes.nanos();
        // Never negative: an acknowledgement may land between reading the clock and reading it.
        Optional<Tick.Measured> measured = Optional.ofNullable(acknowledged.get(partition))
                .map(last -> new Tick.Measured(last.offset(), Duration.ofNanos(Math.max(0, sent - last.nanos()))));
        RecordHeaders headers = new RecordHeaders();
        headers.add(Tick.HEADER, Tick.headerValue(clock.instant(), measured));
        // No key, no value: what a tick brings is its measurement and the log-append time the broker stamps.
        ProducerRecord<byte[], byte[]> tick = new ProducerRecord<>(commandTopic, partition, (Long) null, null, null,
                headers);
        inFlight.put(partition, sent);
        try {
            send(tick, partition, sent);
        } catch (RuntimeException e) {
            inFlight.remove(partition, sent);
            LOG.warn("a tick to {}-{} was not sent (another follows): {}", commandTopic, partition, e.toString());
        }
    }

    private void send(ProducerRecord<byte[], byte[]> tick, int partition, long sent) {
        producer.send(tick, (metadata, error) -> {
            if (error == null) {
                if (metadata.hasOffset()) {
                    acknowledged.put(partition, new Acknowledged(metadata.offset(), logTimes.nanos()));
                }
                acknowledged(partition, metadata, sent);
                metrics.ticked();
            } else {
                LOG.warn("a tick to {}-{} was not appended (another follows): {}", commandTopic, partition,
                        error.getMessage());
            }
            inFlight.remove(partition, sent);
        });
    }

    /** The broker stamped the worker's own record with its log-append time, between its send and now. */
    private void acknowledged(int partition, RecordMetadata metadata, long sentNanos) {
        if (metadata.hasOffset() && metadata.timestamp() >= 0) {
            logTimes.seen(partition, Instant.ofEpochMilli(metadata.timestamp()), OptionalLong.of(sentNanos),
                    logTimes.nanos());
        }
    }

    /** Stops ticking; a round under way finishes first (up to a second), appending nothing more. */
    @Override
    public void close() {
        closed = true;
        if (executor != null) {
            executor.shutdown();
            try {
                if (!executor.awaitTermination(1, TimeUnit.SECONDS)) {
                    executor.shutdownNow();
                }
            } catch (InterruptedException e) {
                executor.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
