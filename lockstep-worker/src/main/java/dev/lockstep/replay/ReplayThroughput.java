package dev.lockstep.replay;

import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.engine.Echo;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.Limits;
import java.io.PrintWriter;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * How fast a replay runs on one thread, in memory: a generated partition of contended commands
 * through {@link PartitionReplay} and {@link Expectations}, as {@code lockstep replay} runs them,
 * against a baseline measured in the same run (reading and answering each record without the
 * lock rules: {@link Echo}).
 */
public final class ReplayThroughput {

    /**
     * Records per second over the measured rounds: the median (what a replay can count on) and the
     * best (what it reaches when nothing else on the machine gets in its way).
     */
    public record Result(int records, double replayMedian, double replayBest, double baselineMedian) {

        /** The replay's median against the baseline's median. */
        public double ratio() {
            return replayMedian / baselineMedian;
        }
    }

    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private static final int WARM_UP = 2;
    private static final int ROUNDS = 6;

    private ReplayThroughput() {
    }

    public static Result measure(int records, PrintWriter out) {
        // The collector matters more than anything else here (docs/benchmarks.md, "Replay"): say which ran.
        out.println("garbage collectors: " + String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList()));
        List<Inbound> log = generate(records, 10_000, new Random(7));
        Echo echo = new Echo(SETTINGS);
        double[] baseline = new double[WARM_UP + ROUNDS];
        double[] replay = new double[WARM_UP + ROUNDS];
        for (int round = 0; round < WARM_UP + ROUNDS; round++) {
            baseline[round] = timed(records, () -> log.forEach(echo::answer)).perSecond();
            Timed replayed = timed(records, () -> {
                Expectations expected = new Expectations(TimeWindow.ALL, "bench.commands", records);
                PartitionReplay partition = PartitionReplay.start(List.of(new RecordedEpoch(0, "bench", 0, SETTINGS,
                        EpochOrigin.FIRST_START, "first start")), 0, List.of(), c -> Optional.empty());
                log.forEach(r -> partition.apply(r, (record, step) -> expected.add(record, step, true)));
            });
            replay[round] = replayed.perSecond();
            out.printf("%s round %d: replay %,.0f records/s (collector pauses %.0f %% of it), baseline %,.0f records/s%n",
                    round < WARM_UP ? "warm-up" : "measured", round + 1, replay[round], replayed.pausedShare() * 100,
                    baseline[round]);
            out.flush();
        }
        // The warm-up rounds let the JIT compile and the heap grow; they are not counted.
        double[] measured = Arrays.copyOfRange(replay, WARM_UP, WARM_UP + ROUNDS);
        return new Result(records, median(measured), Arrays.stream(measured).max().orElseThrow(),
                median(Arrays.copyOfRange(baseline, WARM_UP, WARM_UP + ROUNDS)));
    }

    static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    /** One round: records done, its length, and how much of it the collectors' pauses took. */
    private record Timed(int records, long nanos, long collectorMillis) {

        double perSecond() {
            return records / (nanos / 1e9);
        }

        double pausedShare() {
            return collectorMillis * 1e6 / nanos;
        }
    }

    private static Timed timed(int records, Runnable work) {
        long collected = collectorMillis();
        long start = System.nanoTime();
        work.run();
        return new Timed(records, System.nanoTime() - start, collectorMillis() - collected);
    }

    private static long collectorMillis() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().mapToLong(GarbageCollectorMXBean::getCollectionTime)
                .filter(t -> t > 0).sum();
    }

    /** Acquire, renew, release and status over {@code resources}, a few milliseconds of log time apart. */
    static List<Inbound> generate(int count, int resources, Random random) {
        List<Inbound> log = new ArrayList<>(count);
        Instant time = Instant.parse("2026-12-03T00:00:00Z");
        String[] types = {"acquire", "acquire", "renew", "release", "status"};
        for (int i = 0; i < count; i++) {
            time = time.plusMillis(random.nextInt(4));
            String resource = "job-" + random.nextInt(resources);
            String type = types[random.nextInt(types.length)];
            String json = "{\"request_id\":\"req-" + i + "\",\"type\":\"" + type + "\",\"resource\":\"" + resource + "\""
                    + (type.equals("status") ? "" : ",\"owner\":\"runner-" + random.nextInt(4) + "\"")
                    + (type.equals("acquire") || type.equals("renew") ? ",\"ttl_seconds\":" + (1 + random.nextInt(30)) : "")
                    + "}";
            log.add(new Inbound("bench.commands", 0, i, resource.getBytes(StandardCharsets.UTF_8),
                    json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(time)));
        }
        return log;
    }
}
