package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * CLI conventions: every option and parameter of every command has help text; {@code lockstep
 * --version} names the build's version and its commit (filled in by the build); {@code lockstep
 * generate-completion} writes a completion script for bash and zsh.
 */
class CliConventionsTest {

    @Test
    void everyOptionAndParameterHasHelpText() {
        List<String> bare = new ArrayList<>();
        collectBare(LockstepCli.commandLine(Map.of()), bare);
        assertThat(bare).isEmpty();
    }

    private static void collectBare(CommandLine command, List<String> bare) {
        CommandLine.Model.CommandSpec spec = command.getCommandSpec();
        spec.options().stream().filter(o -> String.join("", o.description()).isBlank())
                .forEach(o -> bare.add(spec.qualifiedName() + " " + o.longestName()));
        spec.positionalParameters().stream().filter(p -> String.join("", p.description()).isBlank())
                .forEach(p -> bare.add(spec.qualifiedName() + " " + p.paramLabel()));
        command.getSubcommands().values().forEach(sub -> collectBare(sub, bare));
    }

    @Test
    void completionCoversEveryCommand() {
        StringWriter out = new StringWriter();
        CommandLine cli = LockstepCli.commandLine(Map.of());
        cli.setOut(new PrintWriter(out));
        assertThat(cli.execute("generate-completion")).isZero();
        assertThat(out.toString()).contains("complete -F").contains("bashcompinit");
        for (String command : cli.getSubcommands().keySet()) {
            assertThat(out.toString()).as(command).contains(command);
        }
    }

    @Test
    void aOneShotCommandBuildsOnlyTheSubcommandItNames() {
        assertThat(LockstepCli.commandLineFor(new String[] {"--verbose", "acquire", "job-7", "--owner", "a"}, Map.of())
                .getSubcommands()).containsOnlyKeys("acquire");
        int every = LockstepCli.SUBCOMMANDS.size();
        // Help, completion and mistakes list every command.
        for (String[] args : List.of(new String[] {}, new String[] {"--help"}, new String[] {"generate-completion"},
                new String[] {"acquier", "job-7"})) {
            assertThat(LockstepCli.commandLineFor(args, Map.of()).getSubcommands()).as(String.join(" ", args))
                    .hasSize(every);
        }
        assertThat(LockstepCli.commandLine(Map.of()).getSubcommands()).hasSize(every);
    }

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
