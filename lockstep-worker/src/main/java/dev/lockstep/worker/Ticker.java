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
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Appends a tick ({@link Tick}) to each command partition of this worker where a lease has ended
 * by the partition's log time now ({@link LogTimes}) but no record has shown it yet, so that its
 * {@code expired} event is written within about {@link #INTERVAL} of the end instead of waiting for
 * the partition's next command. That estimate, from the log-append times of records seen there and the monotonic clock,
 * follows the partition leader's clock, which stamps the tick, and not the worker's wall clock
 * (which may be stepped). It only says when to append; what the tick shows is decided by its
 * log-append time, as for any record, and a replay decides the same.
 *
 * <p>It also appends a hand-over ({@link dev.lockstep.protocol.HandOver}) again where one is due
 * but did not come: the publisher appends each at once, after the batch that made it due, so the
 * ticker only covers one lost with a failed send or a crash, after {@link #RESEND_AFTER}.
 *
 * <p>Runs on a thread of its own, off the command path. A tick not yet applied (behind a backlog,
 * or lost with a failed send) is appended again for the same end only after {@link #RESEND_AFTER}:
 * a partition gets at most one tick per {@link #INTERVAL}, and the same end at most one per
 * {@link #RESEND_AFTER}.
 */
final class Ticker implements AutoCloseable {

    /** How often the worker looks for ends no record has shown: the bound on an expiry event's delay. */
    static final Duration INTERVAL = Duration.ofMillis(250);
    /** The engine's model of this ticker ({@link PartitionDriver}) appends a hand-over again after the same time. */
    static final Duration RESEND_AFTER = PartitionDriver.RESEND_AFTER;

    private static final Logger LOG = LoggerFactory.getLogger(Ticker.class);
    /** Later than any lease's end: what a worker that knows no log time yet asks for. */
    private static final Instant UNKNOWN_END = Instant.parse("9999-12-31T00:00:00Z");

    /** The end a tick was appended for, and when (the worker's clock). */
    private record Appended(Instant due, Instant at) {
    }

    private final LockStore store;
    private final Producer<byte[], byte[]> producer;
    private final String commandTopic;
    private final Clock clock;
    private final LogTimes logTimes;
    private final ClockWatch clockWatch;
    private final WorkerMetrics metrics;
    private final AssignedPartitions assigned;
    private final Map<Integer, Appended> appended = new HashMap<>();
    /** Each hand-over due, and when (the worker's clock) it was first seen due or last appended again. */
    private final Map<DueHandOver, Instant> handOvers = new HashMap<>();
    private ScheduledExecutorService executor;

    /**
     * @param clock the worker's clock: how long since a tick was appended
     * @param logTimes each partition's log time now: whether a lease has ended
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
     * One round: a tick to each partition where a lease ended by now that no record has shown,
     * and each hand-over due for a while appended again; how many records it appended.
     */
    synchronized int tickNow() {
        Instant now = clock.instant();
        int appended = ticks(now) + handOversAgain(now);
        clockWatch.report();
        return appended;
    }

    private int ticks(Instant now) {
        Set<Integer> partitions = assigned.now();
        // Before any record was seen, no log time is known: every lease is taken for ended. A tick
        // too early shows nothing, and its acknowledgement brings the partition's log time.
        Instant by = logTimes.seenAny() ? logTimes.latest(partitions) : UNKNOWN_END;
        Map<Integer, Instant> due;
        try {
            due = new HashMap<>(store.leasesEndingBy(commandTopic, partitions, by));
        } catch (StoreException e) {
            LOG.debug("looking for leases that ended failed, will look again: {}", e.getMessage());
            return 0;
        }
        if (logTimes.seenAny()) {
            due.entrySet().removeIf(end -> end.getValue().isAfter(logTimes.now(end.getKey())));
        }
        appended.keySet().retainAll(due.keySet());
        int ticks = 0;
        for (Map.Entry<Integer, Instant> partition : due.entrySet()) {
            Appended last = appended.get(partition.getKey());
            if (last != null && last.due().equals(partition.getValue())
                    && now.isBefore(last.at().plus(RESEND_AFTER))) {
                continue;
            }
            append(partition.getKey(), partition.getValue());
            appended.put(partition.getKey(), new Appended(partition.getValue(), now));
            ticks++;
        }
        return ticks;
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
            if (since != null && !now.isBefore(since.plus(RESEND_AFTER))) {
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

    private void append(int partition, Instant due) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(Tick.HEADER, Tick.headerValue(due));
        // No key, no value: the broker stamps its log-append time, which is all a tick brings.
        ProducerRecord<byte[], byte[]> tick = new ProducerRecord<>(commandTopic, partition, (Long) null, null, null,
                headers);
        long sent = logTimes.nanos();
        producer.send(tick, (metadata, error) -> {
            if (error == null) {
                acknowledged(partition, metadata, sent);
                metrics.ticked();
            } else {
                LOG.warn("a tick to {}-{} was not appended (another follows): {}", commandTopic, partition,
                        error.getMessage());
            }
        });
    }

    /** The broker stamped the worker's own record with its log-append time, between its send and now. */
    private void acknowledged(int partition, RecordMetadata metadata, long sentNanos) {
        if (metadata.hasOffset() && metadata.timestamp() >= 0) {
            logTimes.seen(partition, Instant.ofEpochMilli(metadata.timestamp()), OptionalLong.of(sentNanos),
                    logTimes.nanos());
        }
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
