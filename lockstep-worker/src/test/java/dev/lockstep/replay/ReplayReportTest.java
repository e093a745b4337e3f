package dev.lockstep.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ReplayReportTest {

    private static final Divergence FORGED = new Divergence(Divergence.Kind.REPLY_DIFFERS, "lock.commands-2@17",
            Optional.of("r-1"), "{\"outcome\":\"not_acquired\"}", "{\"outcome\":\"acquired\"}");

    @Test
    void aDivergenceWinsOverWhatCouldNotBeVerified() {
        assertThat(new ReplayReport(10, 10, 4, 3, 0, List.of(), List.of(), List.of()).exitCode()).isEqualTo(ReplayReport.REPRODUCED);
        assertThat(new ReplayReport(10, 10, 4, 2, 0, List.of(), List.of(), List.of("lock.commands-1: gone")).exitCode())
                .isEqualTo(ReplayReport.CANNOT_VERIFY);
        assertThat(new ReplayReport(10, 10, 4, 2, 0, List.of(), List.of(FORGED), List.of("lock.commands-1: gone")).exitCode())
                .isEqualTo(ReplayReport.DIVERGED);
    }

    @Test
    void eachDivergenceIsNamedWithItsRequestAndSourceInTextAndJson() throws Exception {
        ReplayReport report = new ReplayReport(1_234, 1_200, 800, 3, 0, List.of(), List.of(FORGED), List.of());
        assertThat(report.text()).contains("replayed 1,234 command records").contains("1 divergences")
                .contains("REPLY_DIFFERS lock.commands-2@17 request r-1")
                .contains("expected: {\"outcome\":\"not_acquired\"}").contains("found:    {\"outcome\":\"acquired\"}");
        JsonNode json = new ObjectMapper().readTree(report.json());
        assertThat(json.path("outcome").asText()).isEqualTo("diverged");
        assertThat(json.path("divergences").get(0).path("kind").asText()).isEqualTo("reply_differs");
        assertThat(json.path("divergences").get(0).path("request_id").asText()).isEqualTo("r-1");
        assertThat(json.path("records").asLong()).isEqualTo(1_234);
    }

    @Test
    void aStartFromACheckpointIsSaidInTextAndJson() throws Exception {
        String start = "lock.commands-0: from offset 235 (log time 2026-12-03T18:02:12.887Z)";
        ReplayReport report = new ReplayReport(90, 90, 12, 3, 4, List.of(start), List.of(), List.of());
        assertThat(report.exitCode()).isEqualTo(ReplayReport.REPRODUCED);
        assertThat(report.text()).contains("4 checkpoints").contains("replayed from a checkpoint: " + start);
        JsonNode json = new ObjectMapper().readTree(report.json());
        assertThat(json.path("checkpoints_compared").asInt()).isEqualTo(4);
        assertThat(json.path("started_from_checkpoints").get(0).asText()).isEqualTo(start);
    }
}
