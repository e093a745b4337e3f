package dev.lockstep.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
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
 * <p>It also notes a record stamped outside {@link #BOUND} of the wall clock: stamped ahead of it,
 * or (for the worker's own records, whose send it timed) behind the send. Either clock may be
 * the wrong one; the {@link Ticker} tells the operator, naming the partition's leader.
 *
 * <p>Thread-safe: the poll loop and the producer's callbacks note, the ticker asks.
 */
final class LogTimes {

    /** How far a record's log time may be from the worker's clock before the operator is told. */
    static final Duration BOUND = Duration.ofSeconds(1);
    /** An estimate this old is replaced by any newer one: the partition's leader may have moved to a broker whose clock is behind. */
    private static final long REFRESH_NANOS = Duration.ofSeconds(5).toNanos();

    /**
     * Records of {@code partition} stamped outside the bound: the latest was stamped
     * {@code logTime}, {@code by} ahead of the worker's clock (negative: behind its send);
     * {@code count} of them since the last {@link #takeOutside()}.
     */
    record Outside(int partition, Instant logTime, Duration by, long count) {

        boolean ahead() {
            return !by.isNegative();
        }

        Outside and(Outside later) {
            return new Outside(partition, later.logTime, later.by, count + later.count);
        }
    }

    private record Seen(Instant logTime, long nanos) {

        Instant at(long nowNanos) {
            return logTime.plusNanos(nowNanos - nanos);
        }
    }

    private final Clock clock;
    private final LongSupplier nanoTime;
    private final Map<Integer, Seen> seen = new ConcurrentHashMap<>();
    private final Map<Integer, Outside> ahead = new ConcurrentHashMap<>();
    private final Map<Integer, Outside> behind = new ConcurrentHashMap<>();

    /**
     * @param clock the wall clock, to compare log times with, and for the partitions nothing has
     *     been seen of anywhere yet
     * @param nanoTime the monotonic clock
     */
    LogTimes(Clock clock, LongSupplier nanoTime) {
        this.clock = clock;
        this.nanoTime = nanoTime;
    }

    /**
     * A record of {@code partition} stamped {@code logTime} by its leader was seen at {@code seenNanos}:
     * appended then or before, and after {@code sentNanos} when the worker sent it itself. A record
     * consumed may have waited (a backlog, a transaction committed late), so it only ever moves the
     * estimate on; one of the worker's own, just acknowledged, also moves it back once the estimate
     * is {@link #REFRESH_NANOS} old: the partition's leader may have moved to a broker behind.
     */
    void seen(int partition, Instant logTime, OptionalLong sentNanos, long seenNanos) {
        Seen now = new Seen(logTime, seenNanos);
        boolean fresh = sentNanos.isPresent();
        seen.merge(partition, now, (old, next) -> next.at(next.nanos()).isAfter(old.at(next.nanos()))
                || (fresh && next.nanos() - old.nanos() > REFRESH_NANOS) ? next : old);
        long nowNanos = nanoTime.getAsLong();
        Instant wall = clock.instant();
        Duration ahead = Duration.between(wall.minusNanos(nowNanos - seenNanos), logTime);
        if (ahead.compareTo(BOUND) > 0) {
            note(new Outside(partition, logTime, ahead, 1));
        }
        sentNanos.ifPresent(sent -> {
            Duration behind = Duration.between(logTime, wall.minusNanos(nowNanos - sent));
            if (behind.compareTo(BOUND) > 0) {
                note(new Outside(partition, logTime, behind.negated(), 1));
            }
        });
    }

    private void note(Outside outside) {
        (outside.ahead() ? ahead : behind).merge(outside.partition(), outside, Outside::and);
    }

    /** Whether any record of any partition has been seen yet. */
    boolean seenAny() {
        return !seen.isEmpty();
    }

    /**
     * The partition's log time now, at least: from the latest record seen there, else from the
     * latest seen on any partition (the brokers' clocks agree within {@link #BOUND} when all is
     * well), else the wall clock. What was seen on a partition is kept when it is revoked: the
     * monotonic clock carries it on, should the partition come back.
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

    /** The records seen outside the bound since the last call, per partition and direction. */
    List<Outside> takeOutside() {
        List<Outside> taken = new ArrayList<>();
        for (Map<Integer, Outside> direction : List.of(ahead, behind)) {
            for (Integer partition : List.copyOf(direction.keySet())) {
                Optional.ofNullable(direction.remove(partition)).ifPresent(taken::add);
            }
        }
        return taken;
    }

    private Optional<Seen> latestAnywhere() {
        return seen.values().stream().max((a, b) -> Long.compare(a.nanos(), b.nanos()));
    }
}
