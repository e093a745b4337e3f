package dev.lockstep.engine.histories;

import dev.lockstep.protocol.Tick;
import dev.lockstep.engine.Timekeeping;
import dev.lockstep.core.Now;
import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.Step;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.Limits;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

/**
 * A generated history run as the worker runs it, one record at a time through the
 * {@link PartitionDriver}: each step's commands appended, log time passing with the ticker's
 * records, hand-overs landing, delayed or lost as the steps say; every record checked by
 * {@link Observed} as it is applied. What it leaves is the log, in segments (a loss of records
 * starts a new one, from the state the worker had), with each record's output.
 */
final class HistoryRun {

    static final Instant T0 = Instant.parse("2026-12-06T12:00:00Z");
    /** A quarantine lasts the longest TTL: ten seconds, so that generated histories reach its end. */
    static final EngineSettings SETTINGS = new EngineSettings(new Limits(Duration.ofSeconds(10),
            Limits.DEFAULT_MAX_VALUE_BYTES), EngineSettings.MIN_REQUEST_RETENTION,
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    static final String TOPIC = "lock.commands";
    /** Past every end a history can leave: its last waits and leases end before. */
    private static final Duration FINISH = Duration.ofSeconds(30);

    /** A record of the log and what the worker published for it. */
    record Applied(Inbound record, Step step) {
    }

    /** Records decided from one start: the partition's first, or the state the worker had when records were lost. */
    record Segment(Checkpoint start, List<Applied> applied) {
    }

    private final EngineSettings settings;
    private final PartitionMachine machine;
    private final Observed observed;
    private final List<Segment> segments = new ArrayList<>();
    private final Map<Long, Command> commands = new HashMap<>();
    private final List<Command> sent = new ArrayList<>();
    private final List<Command.Acquire> acquires = new ArrayList<>();
    /** How many records the log holds after each step. */
    private final List<Integer> afterSteps = new ArrayList<>();
    private int records;
    private PartitionDriver driver;
    private List<Applied> current;
    private Instant now = T0;
    private int requests;

    private HistoryRun(EngineSettings settings) {
        this.settings = settings;
        this.machine = new PartitionMachine(settings);
        this.observed = new Observed(settings.limits().maxTtl());
        start(PartitionState.empty(PartitionPosition.START));
    }

    /** Runs the history's steps, then lets every wait and lease end; throws a {@link Violation} at the first broken invariant. */
    static HistoryRun run(List<Action> actions, EngineSettings settings) {
        HistoryRun run = new HistoryRun(settings);
        run.perform(actions);
        return run;
    }

    /** The log up to the first broken invariant, with what each record published, as text: for a report. */
    static String trace(List<Action> actions, EngineSettings settings) {
        HistoryRun run = new HistoryRun(settings);
        try {
            run.perform(actions);
        } catch (Violation | RuntimeException e) {
            // The report says how it failed; the trace shows the records up to there.
        }
        StringBuilder text = new StringBuilder();
        for (Segment segment : run.segments) {
            if (segment != run.segments.get(0)) {
                text.append(String.format("  (records lost: from %s, quarantined)%n", segment.start().position()));
            }
            segment.applied().forEach(applied -> text.append(Trace.line(applied, run.commands)));
        }
        return text.toString();
    }

    private void perform(List<Action> actions) {
        for (Action action : actions) {
            perform(action);
            afterSteps.add(records);
        }
        finish();
    }

    /** The settings the history was decided under. */
    EngineSettings settings() {
        return settings;
    }

    /** Where in the log (how many records before it) the step leaves it; 0 before the first step. */
    int recordsAfter(int step) {
        return step == 0 ? 0 : afterSteps.get(Math.min(step, afterSteps.size()) - 1);
    }

    /** How many records the segments before this one hold. */
    int recordsBefore(Segment segment) {
        int before = 0;
        for (Segment each : segments) {
            if (each == segment) {
                return before;
            }
            before += each.applied().size();
        }
        throw new IllegalArgumentException("not a segment of this run");
    }

    List<Segment> segments() {
        return segments;
    }

    /** The worker's state after the last record, in full. */
    PartitionState state() {
        return driver.state();
    }

    private void start(PartitionState state) {
        current = new ArrayList<>();
        segments.add(new Segment(Checkpoint.of(state, settings), current));
        driver = PartitionDriver.worker(machine, state, TOPIC, 0).observe(this::observe);
    }

    private void observe(Inbound record, Step step) {
        records++;
        current.add(new Applied(record, step));
        Set<String> pending = new TreeSet<>(driver.dueResources());
        driver.inFlight().forEach(handOver -> pending.add(handOver.resource()));
        observed.check(record, Optional.ofNullable(commands.get(record.offset())), step, pending, timeOf(record));
    }

    /**
     * The record's place in time, as the partition's clock after it says: the oracle checks the
     * rules at the engine's time, and that this time never shortens a lease ({@link Observed#LASTS}).
     */
    private Now timeOf(Inbound record) {
        Instant passed = driver.state().position().clock();
        return settings.timekeeping() instanceof Timekeeping.Anchored anchored && !record.headers().has(Tick.HEADER)
                ? new Now(passed, passed.plus(anchored.slack())) : Now.at(passed);
    }

    private void perform(Action action) {
        if (action instanceof Action.Acquire a) {
            send(a.dt(), new Command.Acquire(id(), Action.RESOURCES[a.resource()], Action.OWNERS[a.owner()],
                    Duration.ofSeconds(a.ttl()), Duration.ofSeconds(a.waitSeconds()),
                    a.limit() == 0 ? Share.EXCLUSIVE : Share.shared(a.limit()),
                    a.value() == 0 ? Optional.empty() : Optional.of("v" + a.value())));
        } else if (action instanceof Action.Renew r) {
            send(r.dt(), new Command.Renew(id(), Action.RESOURCES[r.resource()], Action.OWNERS[r.owner()],
                    Duration.ofSeconds(r.ttl()), token(r.owner(), r.resource(), r.token())));
        } else if (action instanceof Action.Release r) {
            send(r.dt(), new Command.Release(id(), Action.RESOURCES[r.resource()], Action.OWNERS[r.owner()],
                    token(r.owner(), r.resource(), r.token())));
        } else if (action instanceof Action.Cancel c) {
            send(c.dt(), cancel(c));
        } else if (action instanceof Action.Status s) {
            send(s.dt(), new Command.Status(id(), Action.RESOURCES[s.resource()],
                    s.owner() < 0 ? Optional.empty() : Optional.of(Action.OWNERS[s.owner()])));
        } else if (action instanceof Action.Retry r) {
            retry(r);
        } else if (action instanceof Action.Pass p) {
            now = now.plusSeconds(p.seconds());
            driver.passTime(now, Duration.ofMillis(p.lagMs()));
        } else if (action instanceof Action.Deliver d) {
            driver.deliver(d.count(), now);
        } else if (action instanceof Action.Lose) {
            driver.lose();
        } else {
            loseRecords(((Action.LoseRecords) action).count());
        }
    }

    /** The command at {@code dt} seconds after the last: the ticker's records for the ends before it first. */
    private void send(int dt, Command command) {
        if (dt > 0) {
            now = now.plusSeconds(dt);
            driver.passTime(now.minusMillis(1));
        }
        commands.put(driver.nextOffset(), command);
        sent.add(command);
        if (command instanceof Command.Acquire acquire) {
            acquires.add(acquire);
        }
        driver.append(CommandEncoder.key(command), CommandEncoder.encode(command, Optional.empty()), InboundHeaders.NONE,
                Optional.of(now));
    }

    private Command cancel(Action.Cancel cancel) {
        if (cancel.back() == 0 || acquires.isEmpty()) {
            return new Command.Release(id(), Action.RESOURCES[0], Action.OWNERS[0], OptionalLong.empty(),
                    Optional.of("never-sent"));
        }
        Command.Acquire acquire = acquires.get(acquires.size() - Math.min(cancel.back(), acquires.size()));
        String owner = cancel.byOther() ? Action.OWNERS[(List.of(Action.OWNERS).indexOf(acquire.owner()) + 1)
                % Action.OWNERS.length] : acquire.owner();
        return new Command.Release(id(), acquire.resource(), owner, OptionalLong.empty(),
                Optional.of(acquire.requestId()));
    }

    private void retry(Action.Retry retry) {
        if (sent.isEmpty()) {
            return;
        }
        Command again = sent.get(sent.size() - Math.min(retry.back(), sent.size()));
        // Under the same request ID, a command nobody else sends: never the same as the one before.
        send(retry.dt(), retry.reused() ? new Command.Release(again.requestId(), again.resource(), "Z",
                OptionalLong.empty()) : again);
    }

    /** The owner's live lease's token, or another; one that names none when the owner holds nothing. */
    private OptionalLong token(int owner, int resource, Action.Token token) {
        Optional<Long> held = observed.holdings().heldBy(Action.RESOURCES[resource], Action.OWNERS[owner], now)
                .map(Lease::fencingToken);
        return switch (token) {
            case NONE -> OptionalLong.empty();
            case RIGHT -> OptionalLong.of(held.orElse(1L));
            case WRONG -> OptionalLong.of(held.orElse(1L) + 1);
        };
    }

    /** The worker goes on after lost records from the state it had, with the position past them: quarantined. */
    private void loseRecords(int count) {
        driver.lose();
        Checkpoint at = Checkpoint.of(driver.state(), settings);
        PartitionPosition after = at.position().afterLoss(at.position().nextOffset() + count);
        observed.recordsLost();
        start(new Checkpoint(after, at.leases(), at.requests(), at.waiters()).state());
        driver.reached(now);
    }

    private void finish() {
        driver.deliverAll(now);
        now = now.plus(FINISH);
        driver.passTime(now);
        driver.deliverAll(now);
        Violation.check(observed.holdings().queuedResources().isEmpty(), Observed.ONE_REPLY,
                "waiters never answered after every wait ended: " + observed.holdings().queuedResources().stream()
                        .map(observed.holdings()::queue).toList());
    }

    private String id() {
        return "q" + ++requests;
    }
}
