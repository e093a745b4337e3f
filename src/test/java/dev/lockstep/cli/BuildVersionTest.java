package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code lockstep --version} names the build's version and its commit (filled in by the build). */
class BuildVersionTest {

    @Test
    void theVersionNamesTheBuildAndItsCommit() {
        StringWriter out = new StringWriter();
        CommandLine cli = LockstepCli.commandLine(Map.of());
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("--version")).isZero();
        assertThat(out.toString().strip())
                .matches("lockstep \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{7,}|unknown)(, with uncommitted changes)?\\)")
                .doesNotContain("${");
    }
}
