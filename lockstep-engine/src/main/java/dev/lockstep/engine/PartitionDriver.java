package dev.lockstep.engine;

import dev.lockstep.core.Lease;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.Tick;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * One partition's records through the {@link PartitionMachine}, one at a time, and what the worker
 * appends to the partition because of them: the one way records are fed to the engine outside the
 * worker's batches.
 *
 * <p>As the worker ({@link #worker}) it is the partition's log as well: a producer's record is
 * appended at the next offset with the log time the caller gives, and applied; the hand-overs a
 * step asks for are in flight until the caller says when they land ({@link #deliver}) or that they
 * were lost ({@link #lose}); and when log time passes ({@link #passTime}) it appends what the
 * worker's ticker appends: a tick at each end of a lease, a wait or a quarantine (while acquires
 * wait) that no record showed, and a hand-over again for a waiter due for {@link #RESEND_AFTER} (a
 * lost one). The caller chooses
 * every log time, so nothing here reads a clock.
 *
 * <p>Over the log ({@link #log}, a replay) it applies the records it is given and appends nothing:
 * the log holds what the worker appended.
 *
 * <pre>{@code
 * PartitionDriver partition = PartitionDriver.worker(machine, PartitionState.empty(PartitionPosition.START), "lock.commands", 0);
 * Step step = partition.append(key, value, InboundHeaders.NONE, Optional.of(t));
 * partition.deliverAll(t);                   // its hand-overs land right after it
 * partition.passTime(t.plusSeconds(30));     // ticks for what ended meanwhile
 * PartitionDriver replay = PartitionDriver.log(machine, replayState);
 * partition.log().forEach(replay::apply);    // the same outputs, record by record
 * }</pre>
 */
public final class PartitionDriver {

    /** How often the worker's ticker looks: a partition's time is measured again this soon after records. */
    public static final Duration INTERVAL = Duration.ofMillis(250);

    /** How long a hand-over may be due before the worker's ticker appends it again (a run of one). */
    public static final Duration RESEND_AFTER = Duration.ofSeconds(5);

    /** What the driver stands for: the worker, which appends to the log, or a replay of it. */
    private enum Role {
        WORKER, REPLAY
    }

    /** A waiter's resource due for a hand-over after the record at {@code afterOffset}, as the ticker finds it. */
    private record Due(String resource, long afterOffset) {
    }

    private final PartitionMachine machine;
    private final PartitionState state;
    private final Role role;
    private final String topic;
    private final int partition;
    private final List<Inbound> log = new ArrayList<>();
    private final Deque<Outbound.HandOver> inFlight = new ArrayDeque<>();
    private final Map<Due, Instant> dueSince = new LinkedHashMap<>();
    /** The latest log time appended so far: the driver's "real" time (the worker's, when time is anchored). */
    private Instant logClock;
    /** The driver's own last tick, whose acknowledgement (at its log time) the next one measures from. */
    private Optional<TickMark> ownTick = Optional.empty();
    private BiConsumer<Inbound, Step> observer = (record, step) -> { };

    private PartitionDriver(PartitionMachine machine, PartitionState state, Role role, String topic, int partition) {
        this.machine = machine;
        this.state = state;
        this.role = role;
        this.topic = topic;
        this.partition = partition;
        // A worker that starts over a stored state knows no log time but what the state holds.
        PartitionPosition position = state.position();
        this.logClock = later(position.clock(), position.lastTick().map(TickMark::logTime).orElse(Instant.EPOCH));
    }

    /**
     * The worker over a partition it alone writes: {@code state} is the whole partition's (every
     * lease and waiter), the next record goes to its position's next offset.
     */
    public static PartitionDriver worker(PartitionMachine machine, PartitionState state, String topic, int partition) {
        return new PartitionDriver(machine, state, Role.WORKER, topic, partition);
    }

    /** A replay of a partition's log: applies the records given, appends nothing. */
    public static PartitionDriver log(PartitionMachine machine, PartitionState state) {
        return new PartitionDriver(machine, state, Role.REPLAY, "", 0);
    }

    /**
     * Hands each record applied from now on, with its step, to {@code observer}: after the hand-overs
     * it asks for are in flight ({@link #inFlight}) and its waiters due are noted ({@link #dueResources}).
     */
    public PartitionDriver observe(BiConsumer<Inbound, Step> observer) {
        this.observer = observer;
        return this;
    }

    /**
     * Log time has reached {@code logTime} (a worker that starts over a stored state after records
     * it does not hold): its ticker counts from there.
     */
    public PartitionDriver reached(Instant logTime) {
        logClock = later(logClock, logTime);
        return this;
    }

    public PartitionMachine machine() {
        return machine;
    }

    public PartitionState state() {
        return state;
    }

    /** The offset the next record gets. */
    public long nextOffset() {
        return state.position().nextOffset();
    }

    /** The records appended so far, in offset order (the worker's; none over a log). */
    public List<Inbound> log() {
        return Collections.unmodifiableList(log);
    }

    /**
     * The resources with a waiter marked due for a hand-over (the worker's {@code hand_over_due}),
     * which the ticker appends again if none comes.
     */
    public Set<String> dueResources() {
        return dueSince.keySet().stream().map(Due::resource).collect(Collectors.toCollection(TreeSet::new));
    }

    /** The hand-overs asked for and not yet appended, in the order they were asked for. */
    public List<Outbound.HandOver> inFlight() {
        return List.copyOf(inFlight);
    }

    /** Applies the log's next record (a replay), or one applied before and fetched again. */
    public Step apply(Inbound record) {
        if (role == Role.WORKER && record.offset() >= nextOffset()) {
            throw new IllegalArgumentException("the worker's log gets its records by append: offset "
                    + record.offset() + " is not below the next, " + nextOffset());
        }
        return step(record, false);
    }

    /** A producer's record appended at the next offset, stamped {@code logAppendTime} (none: a topic that does not stamp). */
    public Step append(byte[] key, byte[] value, InboundHeaders headers, Optional<Instant> logAppendTime) {
        if (role == Role.REPLAY) {
            throw new IllegalStateException("a replay appends nothing: the log holds what was appended");
        }
        Inbound record = new Inbound(topic, partition, nextOffset(), key, value, headers, logAppendTime);
        log.add(record);
        logAppendTime.filter(at -> at.isAfter(logClock)).ifPresent(at -> logClock = at);
        return step(record, true);
    }

    /** A command's JSON keyed by its resource, at log time {@code at}. */
    public Step append(String resource, String json, Instant at) {
        return append(resource.getBytes(StandardCharsets.UTF_8), json.getBytes(StandardCharsets.UTF_8),
                InboundHeaders.NONE, Optional.of(at));
    }

    /**
     * A tick appended at log time {@code at}, as the ticker appends one: measured from the driver's
     * previous tick, acknowledged at its own log time (the worker's monotonic clock runs with the log's here).
     */
    public Step tick(Instant at) {
        return tick(at, at);
    }

    /** A tick appended for the end {@code due}, stamped {@code at}. */
    private Step tick(Instant at, Instant due) {
        Optional<Tick.Measured> measured = ownTick.filter(last -> !at.isBefore(last.logTime()))
                .map(last -> new Tick.Measured(last.offset(), Duration.between(last.logTime(), at)));
        RecordHeaders headers = new RecordHeaders();
        headers.add(Tick.HEADER, Tick.headerValue(due, measured));
        long offset = nextOffset();
        Step step = append(null, null, InboundHeaders.of(headers), Optional.of(at));
        ownTick = Optional.of(new TickMark(offset, at.truncatedTo(java.time.temporal.ChronoUnit.MILLIS)));
        return step;
    }

    /**
     * A hand-over of {@code resource}, the {@code index}-th of a run of {@code count}, appended at
     * log time {@code at} after the last record, as the worker appends one (or a producer forges one).
     */
    public Step handOver(String resource, int index, int count, Instant at) {
        return handOver(resource, topic + "-" + partition + "@" + (nextOffset() - 1), index, count, at);
    }

    /** The first {@code count} hand-overs in flight land at log time {@code at}, in order; those they ask for fly after the rest. */
    public List<Step> deliver(int count, Instant at) {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < count && !inFlight.isEmpty(); i++) {
            Outbound.HandOver next = inFlight.poll();
            steps.add(handOver(next.resource(), next.source().position(), next.index(), next.count(), at));
        }
        return steps;
    }

    /** Every hand-over in flight lands at log time {@code at}, and every one they ask for in turn, until none flies. */
    public List<Step> deliverAll(Instant at) {
        List<Step> steps = new ArrayList<>();
        while (!inFlight.isEmpty()) {
            steps.addAll(deliver(1, at));
        }
        return steps;
    }

    /** The hand-overs in flight are lost (a failed send, a crash): only the ticker appends them again. */
    public void lose() {
        inFlight.clear();
    }

    /** Log time passes to {@code until} with no producer's record: the ticker's records, each as soon as due. */
    public List<Step> passTime(Instant until) {
        return passTime(until, Duration.ZERO);
    }

    /**
     * Log time passes to {@code until} with no producer's record. The ticker appends, in the order
     * they fall due: a tick {@code lag} after each end of a lease, a wait, or a quarantine while
     * acquires wait, that no record has shown (ends up to its own time are shown by it); and each
     * hand-over due for {@link #RESEND_AFTER}
     * (in flight meanwhile or lost) again, alone, as a run of one.
     */
    public List<Step> passTime(Instant until, Duration lag) {
        List<Step> steps = new ArrayList<>();
        while (true) {
            Optional<Instant> end = nextEnd();
            Optional<Instant> tick = nextTick(end, lag);
            Optional<Map.Entry<Due, Instant>> resend = dueSince.entrySet().stream()
                    .min(Map.Entry.comparingByValue());
            Optional<Instant> resendAt = resend.map(due -> later(due.getValue().plus(RESEND_AFTER), logClock));
            if (resendAt.isPresent() && !resendAt.get().isAfter(until)
                    && (tick.isEmpty() || !resendAt.get().isAfter(tick.get()))) {
                Due due = resend.get().getKey();
                dueSince.put(due, resendAt.get());
                steps.add(handOver(due.resource(), topic + "-" + partition + "@" + due.afterOffset(), 1, 1,
                        resendAt.get()));
            } else if (tick.isPresent() && !tick.get().isAfter(until)) {
                steps.add(tick(tick.get(), end.orElse(tick.get())));
            } else {
                return steps;
            }
        }
    }

    /**
     * When the ticker appends its next tick. Keeping log time: {@code lag} after the next end.
     * Anchored: {@link #INTERVAL} after the last record when records came since its own last tick
     * (or it has none) and something dated may be live, since the first tick after them moves time
     * by the slack at most; otherwise when its measurement brings the partition's time to the next
     * end (plus {@code lag}).
     */
    private Optional<Instant> nextTick(Optional<Instant> end, Duration lag) {
        if (!(machine.settings().timekeeping() instanceof Timekeeping.Anchored)) {
            return end.map(e -> e.plus(lag));
        }
        PartitionPosition position = state.position();
        boolean mayBeLive = position.liveUntil().map(until -> until.isAfter(position.clock())).orElse(true);
        boolean recordsSince = ownTick.map(own -> own.offset() != nextOffset() - 1).orElse(true);
        if (!mayBeLive) {
            return Optional.empty();
        } else if (recordsSince) {
            return Optional.of(logClock.plus(INTERVAL));
        }
        return end.map(e -> later(ownTick.orElseThrow().logTime().plus(Duration.between(position.clock(), e)),
                logClock).plus(lag));
    }

    private Step handOver(String resource, String after, int index, int count, Instant at) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HandOver.HEADER, HandOver.headerValue(after, index, count));
        return append(resource.getBytes(StandardCharsets.UTF_8), null, InboundHeaders.of(headers), Optional.of(at));
    }

    /** Applies the record; what it asks to append is in flight, and its waiters due noted, before anyone looks. */
    private Step step(Inbound record, boolean appended) {
        Step step = machine.step(record, state);
        if (appended) {
            inFlight.addAll(step.handOvers());
            trackDue();
        }
        observer.accept(record, step);
        return step;
    }

    /** The partition's log time: the last record's (never earlier than one before it). */
    private Instant clock() {
        return state.position().clock();
    }

    /**
     * The first end after the partition's log time of a lease, a wait, or a quarantine while
     * acquires wait: what the ticker ticks for next.
     */
    private Optional<Instant> nextEnd() {
        Instant clock = clock();
        Stream<Instant> leases = state.leases().stream().map(Lease::expiresAt);
        Stream<Instant> waits = state.queues().all().stream().map(Waiter::deadline);
        Stream<Instant> quarantine = state.queues().all().isEmpty() ? Stream.empty()
                : state.position().quarantine().flatMap(Quarantine::until).stream();
        return Stream.of(leases, waits, quarantine).flatMap(ends -> ends).filter(end -> end.isAfter(clock))
                .min(Instant::compareTo);
    }

    /** The waiters marked due (the worker's {@code hand_over_due}), each noted when first seen so. */
    private void trackDue() {
        Map<Long, String> resources = new HashMap<>();
        state.queues().all().forEach(waiter -> resources.put(waiter.offset(), waiter.resource()));
        Map<Due, Instant> seen = new LinkedHashMap<>();
        state.queues().due().forEach((waiter, after) -> {
            Due due = new Due(resources.get(waiter), after);
            seen.put(due, dueSince.getOrDefault(due, logClock));
        });
        dueSince.clear();
        dueSince.putAll(seen);
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
