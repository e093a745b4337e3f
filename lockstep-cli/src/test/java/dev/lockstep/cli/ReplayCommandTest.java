package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReplayCommandTest {

    @Test
    void theProgressBarFillsWithTheRecordsRead() {
        assertThat(ReplayCommand.bar(0, 200)).startsWith("[" + ".".repeat(30) + "]").contains("  0%  0 / 200 records");
        assertThat(ReplayCommand.bar(100, 200)).startsWith("[" + "#".repeat(15) + ".".repeat(15) + "]")
                .contains(" 50%  100 / 200 records");
        assertThat(ReplayCommand.bar(265_000, 265_000)).startsWith("[" + "#".repeat(30) + "]")
                .contains("100%  265,000 / 265,000 records");
        assertThat(ReplayCommand.bar(0, 0)).as("an empty log is all read").contains("100%");
    }
}
