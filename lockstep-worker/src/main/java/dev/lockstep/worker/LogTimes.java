package dev.lockstep.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Each command partition's log time now, as far as this worker can tell: the log-append time of
 * the latest record it saw there (consumed, or its own tick acknowledged), plus what the monotonic
 * clock says has passed since. Leases end in log time, so the {@link Ticker} asks this, not the
 * worker's wall clock, whether one has ended: a worker clock stepped back would hold every tick
 * back by the step, and a partition leader's clock ahead of the worker's would make the ticks
 * late by the difference.
 *
 * <p>It also notes a record stamped outside {@link #BOUND} of the worker's clock: stamped ahead of
 * it, or (for the worker's own records, whose send it timed) behind the send. Either clock may be
 * the wrong one; the {@link Ticker} tells the operator, naming the partition's leader.
 *
 * <p>Thread-safe: the poll loop and the producer's callbacks note, the ticker asks.
 */
final class LogTimes {

    /** How far a record's log time may be from the worker's clock before the operator is told. */
    static final Duration BOUND = Duration.ofSeconds(1);
    /** An estimate this old is replaced by any newer one: the partition's leader may have moved to a broker whose clock is behind. */
    private static final long REFRESH_NANOS = Duration.ofSeconds(5).toNanos();

    /** A record of {@code partition} whose log time was {@code by} ahead of the worker's clock (negative: behind). */
    record Outside(int partition, Instant logTime, Duration by) {
    }

    private record Seen(Instant logTime, long nanos) {

        Instant at(long nowNanos) {
            return logTime.plusNanos(nowNanos - nanos);
        }
    }

    private final Clock clock;
    private final LongSupplier nanoTime;
    private final Map<Integer, Seen> seen = new ConcurrentHashMap<>();
    private final Map<Integer, Outside> outside = new ConcurrentHashMap<>();

    /**
     * @param clock the worker's clock, for the partitions it has seen nothing of yet and to
     *     compare log times with
     * @param nanoTime the monotonic clock {@code clock} runs on
     */
    LogTimes(Clock clock, LongSupplier nanoTime) {
        this.clock = clock;
        this.nanoTime = nanoTime;
    }

    /**
     * A record of {@code partition} stamped {@code logTime} by its leader was seen at {@code seenNanos}:
     * appended then or before, and after {@code sentNanos} when the worker sent it itself.
     */
    void seen(int partition, Instant logTime, OptionalLong sentNanos, long seenNanos) {
        Seen now = new Seen(logTime, seenNanos);
        seen.merge(partition, now, (old, next) -> next.nanos() - old.nanos() > REFRESH_NANOS
                || next.at(next.nanos()).isAfter(old.at(next.nanos())) ? next : old);
        long nowNanos = nanoTime.getAsLong();
        Instant worker = clock.instant();
        Duration ahead = Duration.between(worker.minusNanos(nowNanos - seenNanos), logTime);
        if (ahead.compareTo(BOUND) > 0) {
            outside.put(partition, new Outside(partition, logTime, ahead));
        }
        sentNanos.ifPresent(sent -> {
            Duration behind = Duration.between(logTime, worker.minusNanos(nowNanos - sent));
            if (behind.compareTo(BOUND) > 0) {
                outside.put(partition, new Outside(partition, logTime, behind.negated()));
            }
        });
    }

    /**
     * The partition's log time now, at least: from the latest record seen there, else from the
     * latest seen on any partition (the brokers' clocks agree within {@link #BOUND} when all is
     * well), else the worker's clock.
     */
    Instant now(int partition) {
        long nowNanos = nanoTime.getAsLong();
        return Optional.ofNullable(seen.get(partition)).or(this::latestAnywhere).map(s -> s.at(nowNanos))
                .orElseGet(clock::instant);
    }

    /** The latest of {@link #now(int)} over {@code partitions}. */
    Instant latest(Collection<Integer> partitions) {
        return partitions.stream().map(this::now).max(Instant::compareTo).orElseGet(clock::instant);
    }

    /** The monotonic clock's reading, for {@link #seen}. */
    long nanos() {
        return nanoTime.getAsLong();
    }

    /** The records seen outside the bound since the last call, one (the latest) per partition. */
    List<Outside> takeOutside() {
        List<Outside> taken = List.copyOf(outside.values());
        taken.forEach(o -> outside.remove(o.partition(), o));
        return taken;
    }

    /** The partition is no longer this worker's: what it saw there may be stale when it comes back. */
    void forget(Collection<Integer> partitions) {
        partitions.forEach(seen::remove);
    }

    private Optional<Seen> latestAnywhere() {
        return seen.values().stream().max((a, b) -> Long.compare(a.nanos(), b.nanos()));
    }
}
