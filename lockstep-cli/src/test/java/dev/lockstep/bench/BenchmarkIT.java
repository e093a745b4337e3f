package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.testkit.LockstepExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A miniature run of {@code lockstep bench}: every mode measured, the files written. It asserts
 * that the benchmark works, never how fast anything is; the figures live in docs/benchmarks.md.
 */
@Tag("serial") // measures
class BenchmarkIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void measuresEveryModeAndWritesResultsAndChart(@TempDir Path out) throws Exception {
        StringWriter table = new StringWriter();
        Benchmark.Plan plan = new Benchmark.Plan(Benchmark.MODES,
                List.of(new Benchmark.Scenario("tiny", 200, true)), List.of(100), Duration.ofSeconds(1),
                Duration.ofSeconds(3), 3, true);
        List<BenchResult> results = new Benchmark(env.kafka(), env.database().jdbcUrl(), new PrintWriter(table))
                .run(plan, out);

        assertThat(results).extracting(BenchResult::mode)
                .containsExactly("echo", "echo", "per-command", "per-command", "lockstep", "lockstep");
        assertThat(results).allSatisfy(r -> {
            assertThat(r.commandsPerS()).isPositive();
            assertThat(r.p99Ms()).isNotNull().isPositive();
        });
        JsonNode file = new ObjectMapper().readTree(out.resolve("results.json").toFile());
        assertThat(file.path("run").path("date").asText()).as("when it ran").endsWith("UTC");
        JsonNode json = file.path("results");
        assertThat(json).hasSize(6);
        assertThat(json.get(1).fieldNames()).toIterable().containsExactly("mode", "scenario", "offered_per_s",
                "commands_per_s", "p50_ms", "p99_ms", "p999_ms", "errors");
        assertThat(json.get(1).path("offered_per_s").asInt()).isEqualTo(100);
        assertThat(ImageIO.read(out.resolve("latency-tiny.png").toFile()).getWidth()).isPositive();
        assertThat(table.toString()).contains("max throughput: lockstep =").contains("lockstep p99 =");
        // The trace of each fixed load: every stage of the worker's and the generator's measured.
        String heading = "lockstep, tiny, 100 commands/s offered: where a command's time goes";
        List<String> lines = table.toString().lines().toList();
        int at = lines.indexOf(heading);
        assertThat(at).as("the lockstep trace is printed").isNotNegative();
        List<String> stages = lines.subList(at + 2, at + 2 + StageTrace.Stage.values().length);
        for (int i = 0; i < stages.size(); i++) {
            StageTrace.Stage stage = StageTrace.Stage.values()[i];
            assertThat(stages.get(i)).contains(stage.spans);
            long count = Long.parseLong(stages.get(i).substring(stages.get(i).indexOf(stage.unit) + stage.unit.length())
                    .trim().split("\\s+")[0]);
            assertThat(count).as(stage.name()).isPositive();
        }
    }
}
