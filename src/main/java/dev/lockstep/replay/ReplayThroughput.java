package dev.lockstep.replay;

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
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * How fast a replay runs on one thread, in memory: a generated partition of contended commands
 * through {@link PartitionReplay} and {@link Expectations}, as {@code lockstep replay} runs them,
 * against a baseline measured in the same run (reading and answering each record without the
 * lock rules: {@link PartitionMachine#echo}).
 */
public final class ReplayThroughput {

    /** Records per second, best of the measured rounds. */
    public record Result(int records, double replayPerSecond, double baselinePerSecond) {

        public double ratio() {
            return replayPerSecond / baselinePerSecond;
        }
    }

    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private static final int ROUNDS = 5;

    private ReplayThroughput() {
    }

    public static Result measure(int records, PrintWriter out) {
        // The collector matters more than anything else here (docs/benchmarks.md, "Replay"): say which ran.
        out.println("garbage collectors: " + String.join(", ", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList()));
        List<Inbound> log = generate(records, 10_000, new Random(7));
        PartitionMachine echo = new PartitionMachine(SETTINGS);
        double[] baseline = new double[ROUNDS + 1];
        double[] replay = new double[ROUNDS + 1];
        for (int round = 0; round <= ROUNDS; round++) {
            baseline[round] = perSecond(records, () -> log.forEach(echo::echo));
            replay[round] = perSecond(records, () -> {
                Expectations expected = new Expectations(TimeWindow.ALL, records);
                PartitionReplay partition = PartitionReplay.start(List.of(new RecordedEpoch(0, "bench", 0, SETTINGS,
                        EpochOrigin.FIRST_START, "first start")), 0, List.of(), c -> Optional.empty());
                log.forEach(r -> partition.apply(r, (record, step) -> expected.add(record, step, true)));
            });
            out.printf("%s round %d: replay %,.0f records/s, baseline %,.0f records/s%n", round == 0 ? "warm-up" : "measured",
                    round, replay[round], baseline[round]);
            out.flush();
        }
        // Round 0 warmed the JIT up and is not counted.
        return new Result(records, Arrays.stream(replay, 1, ROUNDS + 1).max().orElseThrow(),
                Arrays.stream(baseline, 1, ROUNDS + 1).max().orElseThrow());
    }

    private static double perSecond(int records, Runnable work) {
        long start = System.nanoTime();
        work.run();
        return records / ((System.nanoTime() - start) / 1e9);
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
                    json.getBytes(StandardCharsets.UTF_8), new RecordHeaders(), Optional.of(time)));
        }
        return log;
    }
}
