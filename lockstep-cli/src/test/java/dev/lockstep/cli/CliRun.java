package dev.lockstep.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.testkit.Commands;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.CommandLine;

/** One run of the CLI in this JVM, as a user types it: its exit code and what it printed. */
record CliRun(int exitCode, String out, String err) {

    /** Runs {@code lockstep ARGS} with {@code env} as its environment (for LOCKSTEP_* defaults). */
    static CliRun of(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = LockstepCli.commandLine(env);
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }

    JsonNode json() {
        return Commands.parse(out.getBytes(StandardCharsets.UTF_8));
    }
}
