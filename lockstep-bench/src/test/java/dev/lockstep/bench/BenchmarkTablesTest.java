package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/benchmarks.md shows what its result files say: each table after a
 * {@code <!-- table: KIND from FILE -->} comment is made again from that file and must be the same.
 */
class BenchmarkTablesTest {

    private static final Path PAGE = Path.of("..", "docs", "benchmarks.md");

    @Test
    void everyMarkedTableOfThePageIsWhatItsFileSays() throws IOException {
        String page = Files.readString(PAGE);

        assertThat(page.split("<!-- table: ", -1)).as("marked tables in the page").hasSizeGreaterThanOrEqualTo(3);
        assertThat(page).as("the page as its files make it; java -cp target/lockstep.jar "
                + "dev.lockstep.bench.BenchmarkTables docs/benchmarks.md makes it so").isEqualTo(BenchmarkTables.remade(PAGE));
    }

    @Test
    void theThroughputTablesSetEachModeAgainstEchoOfTheSameRun() {
        JsonNode quick = BenchmarkTables.read(PAGE.resolveSibling("bench/results-quick-2026-12-05.json"));

        assertThat(ThroughputTables.maximum(quick)).contains("| echo | 81,278 | 1.00× |")
                .contains("| lockstep | 13,438 | 0.17× |");
        assertThat(ThroughputTables.fixed(quick)).contains("| mode (10k-resources) | 2,000/s: p50 / p99 |")
                .contains("| echo | 4.0 / 13.4 ms |").contains("| lockstep | 394.5 / 1,469.4 ms (109.41×) |");
    }

    @Test
    void aTableOfAFileThatSaysWhereItRanHasThatAsItsCaption() {
        RunInfo run = new RunInfo("2026-12-06 07:00 UTC", 2, "AMD EPYC", 24, "17.0.15+6", "Linux 6.1");
        JsonNode file = new ObjectMapper().valueToTree(new Results<>(run, List.of()));

        assertThat(BenchmarkTables.caption(file))
                .contains("Measured 2026-12-06 07:00 UTC, 2 cores (AMD EPYC), 24 GiB, Java 17.0.15+6, Linux 6.1.");
        assertThat(BenchmarkTables.caption(BenchmarkTables.read(PAGE.resolveSibling("bench/results-quick-2026-12-05.json"))))
                .as("a file of an older run says nothing of it").isEmpty();
    }

    @Test
    void theCpuTableSetsEachSystemAgainstEchoAtTheSameCountOfCallers() {
        JsonNode peers = BenchmarkTables.read(PAGE.resolveSibling("bench/peers-2026-12-06-b.json"));

        assertThat(PeerTables.cpu(peers)).contains("| echo (not a lock) | 2.89 ms | 0.88 ms |")
                .contains("| lockstep | 6.37 ms (2.20×) | 3.71 ms (4.24×) |");
    }
}
