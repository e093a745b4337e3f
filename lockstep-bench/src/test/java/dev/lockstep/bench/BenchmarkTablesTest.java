package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    void theModesTableSetsEachModeAgainstEchoOfTheSameRun() {
        String table = BenchmarkTables.modes(BenchmarkTables.read(PAGE.resolveSibling("bench/results-quick-2026-12-05.json")));

        assertThat(table).contains("| echo | 81,278 | 1.00× | 13.4 ms | 1.0× |")
                .contains("| lockstep | 13,438 | 0.17× | 1,469.4 ms | 109.4× |");
    }
}
