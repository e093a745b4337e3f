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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A miniature {@code lockstep bench --peers} with lockstep's jar alone on the class path, as the
 * main build has it: lockstep and its echo floor are measured through its client library, and each
 * peer whose client is missing is reported as not measured, with no figures of its own. It asserts
 * no speed.
 */
class PeerBenchIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void measuresLockstepAndReportsPeersItCannotMeasure(@TempDir Path out) throws Exception {
        StringWriter table = new StringWriter();
        List<PeerWorkload.Figures> figures;
        try (LockStore store = PostgresLockStore.open(env.database())) {
            figures = new PeerBench(new PrintWriter(table)).run(env.kafka(), store,
                    new PeerBench.Options(Map.of(), true, 20, 4, Duration.ofSeconds(2), List.of(3), out));
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
        JsonNode json = new ObjectMapper().readTree(out.resolve("peers.json").toFile());
        assertThat(json).hasSize(2);
        assertThat(json.get(0).path("peer").asText()).isEqualTo("lockstep");
        assertThat(json.get(1).path("peer").asText()).isEqualTo("echo");
        assertThat(json.get(1).path("concurrent_pairs_per_s").asDouble()).isPositive();
        assertThat(ImageIO.read(out.resolve("peers.png").toFile()).getWidth()).isPositive();
        JsonNode contended = new ObjectMapper().readTree(out.resolve("peers-contended.json").toFile());
        assertThat(contended).extracting(node -> node.path("peer").asText()).containsExactly("lockstep", "echo");
        JsonNode lockstep = contended.get(0);
        assertThat(lockstep.path("callers").asInt()).isEqualTo(3);
        assertThat(lockstep.path("grants").asLong()).as("the lock passed from caller to caller").isGreaterThan(3);
        assertThat(lockstep.path("hand_over_p50_ms").asDouble()).isPositive();
        assertThat(lockstep.path("out_of_order").asLong()).as("granted in the order the callers queued").isZero();
        assertThat(lockstep.path("errors").asLong()).isZero();
        assertThat(contended.get(1).path("out_of_order").asLong()).as("echo is no lock").isEqualTo(-1);
        assertThat(table.toString()).contains("hand-over p50 is");
    }
}
