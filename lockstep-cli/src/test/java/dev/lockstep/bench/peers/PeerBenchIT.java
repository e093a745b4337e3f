package dev.lockstep.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.LockstepExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A miniature {@code lockstep bench --peers} with lockstep's jar alone on the class path, as the
 * main build has it: lockstep and its echo floor are measured through its client library, and each
 * peer whose client is missing is reported as not measured, with no figures of its own. It asserts
 * no speed.
 */
@Tag("serial") // measures
class PeerBenchIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void measuresLockstepAndReportsPeersItCannotMeasure(@TempDir Path out) throws Exception {
        StringWriter table = new StringWriter();
        List<PeerWorkload.Figures> figures;
        try (LockStore store = PostgresLockStore.open(env.database())) {
            figures = new PeerBench(new PrintWriter(table)).run(env.kafka(), store,
                    new PeerBench.Options(Map.of(), true, 20, List.of(4, 8), Duration.ofSeconds(2), List.of(3),
                            List.of(6), 3, out));
        }

        assertThat(figures).extracting(PeerWorkload.Figures::peer).containsExactly("lockstep", "echo");
        for (PeerWorkload.Figures measured : figures) {
            assertThat(measured.errors()).isZero();
            assertThat(measured.acquireP50Ms()).isPositive().isLessThanOrEqualTo(measured.acquireP99Ms());
            assertThat(measured.concurrentPairsPerS()).isPositive();
        }
        assertThat(table.toString()).contains("echo: not a lock");
        for (String peer : PeerBench.PEERS) {
            assertThat(table.toString()).contains(peer + ": not measured: its client is not on the classpath");
        }
        JsonNode file = new ObjectMapper().readTree(out.resolve("peers.json").toFile());
        assertThat(file.path("run").path("cores").asInt()).as("the machine it ran on").isPositive();
        JsonNode json = file.path("results");
        assertThat(json).hasSize(2);
        assertThat(json.get(0).path("peer").asText()).isEqualTo("lockstep");
        assertThat(json.get(1).path("peer").asText()).isEqualTo("echo");
        assertThat(json.get(1).path("concurrent_pairs_per_s").asDouble()).isPositive();
        for (JsonNode system : json) {
            assertThat(system.path("curve")).extracting(point -> point.path("callers").asInt()).containsExactly(4, 8);
            assertThat(system.path("curve").get(0).path("pairs_per_s").asDouble())
                    .isEqualTo(system.path("concurrent_pairs_per_s").asDouble());
            assertThat(system.path("curve")).allSatisfy(point -> assertThat(
                    point.path("cpu_ms_per_pair").asDouble()).as("CPU spent per pair").isPositive());
        }
        assertThat(table.toString()).contains("CPU ms / pair");
        assertThat(ImageIO.read(out.resolve("peers-curve.png").toFile()).getWidth()).isPositive();
        assertThat(ImageIO.read(out.resolve("peers.png").toFile()).getWidth()).isPositive();
        JsonNode contended = new ObjectMapper().readTree(out.resolve("peers-contended.json").toFile()).path("results");
        assertThat(contended).extracting(node -> node.path("peer").asText()).containsExactly("lockstep", "echo");
        JsonNode lockstep = contended.get(0);
        assertThat(lockstep.path("callers").asInt()).isEqualTo(3);
        assertThat(lockstep.path("grants").asLong()).as("the lock passed from caller to caller").isGreaterThan(3);
        assertThat(lockstep.path("hand_over_p50_ms").asDouble()).isPositive();
        // Counted by when each caller called acquire here: two requests that cross on their way count, so a few
        // may show even in the log's order (the history checker proves that order in the fault runs).
        assertThat(lockstep.path("out_of_order").asLong()).isBetween(0L, lockstep.path("grants").asLong());
        assertThat(lockstep.path("errors").asLong()).isZero();
        assertThat(contended.get(1).path("out_of_order").asLong()).as("echo is no lock").isEqualTo(-1);
        assertThat(table.toString()).contains("hand-over p50 is");
        JsonNode recipes = new ObjectMapper().readTree(out.resolve("peers-recipes.json").toFile()).path("results");
        assertThat(recipes).extracting(node -> node.path("peer").asText()).as("echo is no lock").containsExactly("lockstep");
        JsonNode semaphore = recipes.get(0).path("semaphore").get(0);
        assertThat(semaphore.path("callers").asInt()).isEqualTo(6);
        assertThat(semaphore.path("grants_per_s").asDouble()).isPositive();
        assertThat(semaphore.path("most_holders").asInt()).as("never more holders than permits").isBetween(1, 4);
        assertThat(semaphore.path("errors").asLong()).isZero();
        JsonNode failover = recipes.get(0).path("failover").get(0);
        assertThat(failover.path("rounds").asInt()).isEqualTo(3);
        assertThat(failover.path("p50_ms").asDouble()).isPositive().isLessThanOrEqualTo(failover.path("max_ms").asDouble());
        assertThat(table.toString()).contains("failover p50").contains("most at once");
    }
}
