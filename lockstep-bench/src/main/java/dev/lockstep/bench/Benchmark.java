package dev.lockstep.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.lockstep.core.Command;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Runs the three modes (echo, per-command, lockstep) against one broker and one database, in one
 * run, so that their figures can be compared as ratios.
 */
public final class Benchmark {

    /** What to measure. */
    /** @param trace whether to print, for each fixed load, where a command's time goes stage by stage */
    public record Plan(List<BenchMode> modes, List<Scenario> scenarios, List<Integer> fixedRates, Duration warmup,
            Duration measure, int partitions, boolean trace) {
    }

    /** @param prefill live leases put in the table before the run (one per resource) */
    public record Scenario(String name, int resources, boolean prefill) {
    }

    /** Every mode, baselines first. */
    public static final List<BenchMode> MODES = List.of(BenchMode.values());
    private static final Duration WARM_UP = Duration.ofSeconds(5);

    private final KafkaSettings kafka;
    private final String databaseUrl;
    private final PrintWriter out;

    public Benchmark(KafkaSettings kafka, String databaseUrl, PrintWriter out) {
        this.kafka = kafka;
        this.databaseUrl = databaseUrl;
        this.out = out;
    }

    public static String modeName(BenchMode mode) {
        return mode.wireName();
    }

    public List<BenchResult> run(Plan plan, Path outputDir) throws IOException, InterruptedException, SQLException {
        Files.createDirectories(outputDir);
        List<BenchResult> results = new ArrayList<>();
        out.printf("%-12s %-16s %9s %12s %9s %9s %9s %7s%n", "mode", "scenario", "offered", "commands/s", "p50 ms",
                "p99 ms", "p99.9 ms", "errors");
        try (LockStore store = PostgresLockStore.open(DatabaseSettings.of(databaseUrl))) {
            warmUp(plan, store);
            for (Scenario scenario : plan.scenarios()) {
                for (BenchMode mode : plan.modes()) {
                    prepare(scenario);
                    List<Optional<Integer>> loads = new ArrayList<>();
                    loads.add(Optional.empty());
                    plan.fixedRates().forEach(rate -> loads.add(Optional.of(rate)));
                    for (Optional<Integer> load : loads) {
                        BenchResult result = measure(plan, scenario, mode, load, store);
                        results.add(result);
                        out.printf("%-12s %-16s %9s %12.0f %9s %9s %9s %7d%n", result.mode(), result.scenario(),
                                load.map(String::valueOf).orElse("max"), result.commandsPerS(), ms(result.p50Ms()),
                                ms(result.p99Ms()), ms(result.p999Ms()), result.errors());
                        out.flush();
                    }
                }
                Chart.draw(scenario.name(), results.stream().filter(r -> r.scenario().equals(scenario.name())).toList(),
                        outputDir.resolve("latency-" + scenario.name() + ".png"));
            }
        }
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(outputDir.resolve("results.json").toFile(), new Results<>(RunInfo.current(Clock.systemUTC()), results));
        summarize(results);
        return results;
    }

    /**
     * One unrecorded run of every mode first: the JIT compiles the broker, the clients and the
     * worker before anything is measured, so the mode measured first is not the one that pays.
     */
    private void warmUp(Plan plan, LockStore store) throws InterruptedException, SQLException {
        Scenario scenario = plan.scenarios().get(0);
        prepare(scenario);
        for (BenchMode mode : plan.modes()) {
            measure(new Plan(plan.modes(), plan.scenarios(), List.of(), Duration.ofSeconds(1), WARM_UP, plan.partitions(),
                    false),
                    scenario, mode, Optional.empty(), store);
        }
        out.println("(warm-up done: " + WARM_UP.toSeconds() + " s of each mode, not recorded) "
                + JitSettling.describe(JitSettling.ofThisJvm().await(Duration.ofSeconds(60))));
    }

    private BenchResult measure(Plan plan, Scenario scenario, BenchMode mode, Optional<Integer> load, LockStore store)
            throws InterruptedException {
        Optional<StageTrace> trace = plan.trace() && load.isPresent() ? Optional.of(new StageTrace()) : Optional.empty();
        try (BenchWorker worker = BenchWorker.start(kafka, store, mode, plan.partitions(),
                trace.map(StageTrace::registry).orElseGet(SimpleMeterRegistry::new));
                LoadGenerator generator = LoadGenerator.start(kafka, worker.topics(), plan.partitions(), trace)) {
            if (!generator.probe(new Command.Status("probe-" + worker.run(), "probe"), Duration.ofSeconds(60))) {
                throw new IllegalStateException("the " + modeName(mode) + " worker did not answer within 60 s");
            }
            BenchResult result = generator.run(modeName(mode), scenario.name(), load,
                    new CommandMix(scenario.resources(), 42 + worker.run()), plan.warmup(), plan.measure());
            trace.ifPresent(stages -> stages.print(modeName(mode) + ", " + scenario.name() + ", " + load.get()
                    + " commands/s offered: where a command's time goes", out));
            return result;
        }
    }

    /** Empties the tables, and fills one live lease per resource when the scenario asks for it. */
    private void prepare(Scenario scenario) throws SQLException {
        try (Connection c = DriverManager.getConnection(databaseUrl); Statement st = c.createStatement()) {
            st.execute("TRUNCATE distributed_locks, request_log, partition_progress, partition_epochs");
            if (scenario.prefill()) {
                st.execute("INSERT INTO distributed_locks (resource, owner, fencing_token, acquired_at, expires_at) "
                        + "SELECT 'res-' || g, 'owner-' || (g % " + CommandMix.OWNERS + "), 1, now(), "
                        + "now() + interval '1 day' FROM generate_series(0, " + (scenario.resources() - 1) + ") g");
                st.execute("ANALYZE distributed_locks");
            }
        }
    }

    private void summarize(List<BenchResult> results) {
        out.println();
        for (String scenario : results.stream().map(BenchResult::scenario).distinct().toList()) {
            Optional<BenchResult> echo = find(results, "echo", scenario, null);
            Optional<BenchResult> perCommand = find(results, "per-command", scenario, null);
            Optional<BenchResult> lockstep = find(results, "lockstep", scenario, null);
            if (echo.isPresent() && perCommand.isPresent() && lockstep.isPresent()) {
                out.printf("%s, max throughput: lockstep = %.2f x echo, %.2f x per-command%n", scenario,
                        lockstep.get().commandsPerS() / echo.get().commandsPerS(),
                        lockstep.get().commandsPerS() / perCommand.get().commandsPerS());
            }
            results.stream().filter(r -> r.scenario().equals(scenario) && r.offeredPerS() != null)
                    .map(BenchResult::offeredPerS).distinct().forEach(rate -> {
                        Optional<BenchResult> e = find(results, "echo", scenario, rate);
                        Optional<BenchResult> l = find(results, "lockstep", scenario, rate);
                        if (e.isPresent() && l.isPresent() && e.get().p99Ms() != null && l.get().p99Ms() != null) {
                            out.printf("%s at %d/s: lockstep p99 = %.2f x echo p99%n", scenario, rate,
                                    l.get().p99Ms() / e.get().p99Ms());
                        }
                    });
        }
        out.flush();
    }

    private static String ms(Double value) {
        return value == null ? "-" : String.format("%.2f", value);
    }

    private static Optional<BenchResult> find(List<BenchResult> results, String mode, String scenario, Integer rate) {
        return results.stream().filter(r -> r.mode().equals(mode) && r.scenario().equals(scenario)
                && Objects.equals(r.offeredPerS(), rate)).findFirst();
    }
}
