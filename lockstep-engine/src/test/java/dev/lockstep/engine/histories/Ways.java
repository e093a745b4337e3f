package dev.lockstep.engine.histories;

import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.PreparedBatch;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The same log decided every way the product decides it, against what the worker published one
 * record at a time: a replay from the segment's start; a replay resumed from a checkpoint; and the
 * worker's batches, split as the case says, each against the state its store loads for it, with a
 * restart that fetches records again. Every output must be the same, byte for byte, and so must
 * the state each way leaves.
 */
final class Ways {

    static final String SAME = "the same result every way";

    private final PartitionMachine machine;
    private final EngineSettings settings;
    private final Generated generated;
    private final HistoryRun run;

    private Ways(Generated generated, HistoryRun run) {
        this.generated = generated;
        this.run = run;
        this.settings = run.settings();
        this.machine = new PartitionMachine(settings);
    }

    /** The record of the segment the step leaves the log at: clamped to the segment. */
    private int within(HistoryRun.Segment segment, int step) {
        int at = run.recordsAfter(step) - run.recordsBefore(segment);
        return Math.max(0, Math.min(segment.applied().size(), at));
    }

    static void check(HistoryRun run, Generated generated) {
        Ways ways = new Ways(generated, run);
        List<HistoryRun.Segment> segments = run.segments();
        for (int i = 0; i < segments.size(); i++) {
            Checkpoint end = ways.check(segments.get(i));
            if (i == segments.size() - 1) {
                same("the worker's state", end.differenceFrom(Checkpoint.of(run.state(), ways.settings)));
            }
        }
    }

    /** Checks one segment every way; the state the log leaves after it. */
    private Checkpoint check(HistoryRun.Segment segment) {
        List<Inbound> records = segment.applied().stream().map(HistoryRun.Applied::record).toList();
        Map<Long, List<String>> expected = new LinkedHashMap<>();
        segment.applied().forEach(a -> expected.put(a.record().offset(), render(a.step().all(), true)));
        PartitionState replayed = replayed(segment.start());
        PartitionDriver replay = PartitionDriver.log(machine, replayed);
        records.forEach(record -> compare("a replay", record, expected, render(replay.apply(record).all(), true)));
        Checkpoint end = Checkpoint.of(replayed, settings);
        resumed(segment, records, expected, end);
        batches(segment, records, expected, end);
        return end;
    }

    /** A replay that resumes from the worker's checkpoint part way: the same outputs after it, the same state. */
    private void resumed(HistoryRun.Segment segment, List<Inbound> records, Map<Long, List<String>> expected,
            Checkpoint end) {
        int at = within(segment, generated.checkpointAt());
        PartitionState worker = segment.start().state();
        PartitionState replayed = replayed(segment.start());
        PartitionDriver upTo = PartitionDriver.log(machine, worker);
        PartitionDriver alongside = PartitionDriver.log(machine, replayed);
        records.subList(0, at).forEach(record -> {
            upTo.apply(record);
            alongside.apply(record);
        });
        Checkpoint taken = Checkpoint.of(worker, settings);
        same("a replay's checkpoint at the worker's", taken.differenceFrom(Checkpoint.of(replayed, settings)));
        PartitionState resumed = taken.state();
        resumed.forReplay();
        PartitionDriver replay = PartitionDriver.log(machine, resumed);
        records.subList(at, records.size()).forEach(record -> compare("a replay from a checkpoint", record, expected,
                render(replay.apply(record).all(), true)));
        same("a replay from a checkpoint", end.differenceFrom(Checkpoint.of(resumed, settings)));
    }

    /**
     * The worker's batches over its store, as the case splits them; at the restart the next batch
     * begins {@code rewind} records back, whose outputs come again from the store (without the
     * hand-overs, which only the ticker appends again).
     */
    private void batches(HistoryRun.Segment segment, List<Inbound> records, Map<Long, List<String>> expected,
            Checkpoint end) {
        StoreProjection store = new StoreProjection(segment.start());
        int restart = generated.restartAt() == 0 ? -1 : within(segment, generated.restartAt());
        int next = 0;
        int batch = 0;
        boolean restarted = false;
        while (next < records.size()) {
            int size = generated.batches().get(batch++ % generated.batches().size());
            int to = Math.min(records.size(), next + size);
            if (!restarted && restart > next && restart < to) {
                to = restart;
            }
            List<Inbound> taken = records.subList(next, to);
            PreparedBatch prepared = machine.prepare(taken);
            PartitionState state = store.load(taken, prepared);
            PartitionPosition loaded = state.position();
            Map<Long, List<Outbound>> out = bySource(prepared.applyTo(state));
            for (Inbound record : taken) {
                List<Outbound> made = out.getOrDefault(record.offset(), List.of());
                if (record.offset() >= loaded.nextOffset()) {
                    compare("the worker's batches over its store", record, expected, render(made, true));
                } else {
                    List<String> again = render(made, false);
                    List<String> before = expected.get(record.offset()).stream()
                            .filter(line -> !line.contains(" hand-over ")).map(Ways::withoutKind).toList();
                    same("a record fetched again after a restart", again.equals(before) ? Optional.empty()
                            : Optional.of(record.position() + " published " + again + " where it first published "
                                    + before));
                }
            }
            store.save(state, loaded);
            next = to;
            if (!restarted && next == restart) {
                restarted = true;
                next = Math.max(0, restart - generated.rewind());
            }
        }
        same("the worker's store after its batches", end.differenceFrom(store.checkpoint(settings)));
    }

    private static PartitionState replayed(Checkpoint start) {
        PartitionState state = start.state();
        state.forReplay();
        return state;
    }

    private static Map<Long, List<Outbound>> bySource(List<Outbound> outs) {
        Map<Long, List<Outbound>> by = new LinkedHashMap<>();
        outs.forEach(out -> by.computeIfAbsent(out.source().offset(), o -> new ArrayList<>()).add(out));
        return by;
    }

    private static void compare(String way, Inbound record, Map<Long, List<String>> expected, List<String> actual) {
        List<String> first = expected.get(record.offset());
        same(way, first.equals(actual) ? Optional.empty() : Optional.of(record.position() + " published " + actual
                + " where the worker, one record at a time, published " + first));
    }

    private static void same(String way, Optional<String> difference) {
        difference.ifPresent(d -> {
            throw new Violation(SAME + ": " + way, d);
        });
    }

    /** Everything published, as text: replies with their route, correlation and kind of answer; events; hand-overs; dead letters. */
    static List<String> render(List<Outbound> outs, boolean withKind) {
        return outs.stream().map(out -> render(out, withKind)).toList();
    }

    private static String render(Outbound out, boolean withKind) {
        if (out instanceof Outbound.ReplyRecord reply) {
            return "reply to " + reply.requestId() + " (@" + reply.requestOffset() + ") via " + reply.route()
                    + reply.correlationId().map(id -> " corr " + HexFormat.of().formatHex(id)).orElse("")
                    + (withKind ? " [" + kind(reply.answer()) + "]" : "") + ": "
                    + new String(reply.value(), StandardCharsets.UTF_8);
        } else if (out instanceof Outbound.Event event) {
            return "event " + event.entry().value();
        } else if (out instanceof Outbound.HandOver handOver) {
            return " hand-over " + handOver.resource() + " " + handOver.index() + "/" + handOver.count();
        }
        Outbound.DeadLetter dead = (Outbound.DeadLetter) out;
        return "dead letter " + dead.cause() + " " + dead.reason() + dead.reply().map(r -> " " + render(r, withKind))
                .orElse("");
    }

    private static String kind(Outbound.Answer answer) {
        return answer instanceof Outbound.Answer.Decided decided ? "decided " + decided.outcome() : "repeated";
    }

    /** A reply published again is counted as repeated (or not, for a waiter's): the same reply all the same. */
    private static String withoutKind(String line) {
        return line.replaceFirst(" \\[(decided [A-Z_]+|repeated)\\]", "");
    }
}
