package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepProcess;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Errors and log levels as a user meets them, in a CLI process of their own: an error is one line
 * naming the option that fixes it; LOCKSTEP_LOG_LEVEL holds in every command; --verbose shows the
 * stack trace. (No broker or database: what is asked for is unreachable on purpose.)
 */
class CliLoggingIT {

    @TempDir
    Path dir;

    private record Run(int exitCode, List<String> err) {
    }

    private Run run(Map<String, String> env, String... args) throws Exception {
        File err = dir.resolve("stderr-" + System.nanoTime()).toFile();
        Process process = LockstepProcess.start(err, env, args);
        process.getOutputStream().close();
        process.getInputStream().readAllBytes();
        assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), Files.readAllLines(err.toPath(), StandardCharsets.UTF_8));
    }

    /** Client properties that give up on an absent broker in a second or two. */
    private Path impatient() throws Exception {
        return Files.writeString(dir.resolve("impatient.properties"),
                "default.api.timeout.ms=2000\nrequest.timeout.ms=1000\nmax.block.ms=2000\n");
    }

    @Test
    void anUnreachableBrokerIsOneLineNamingTheFlagsInEveryCommandThatNeedsOne() throws Exception {
        String config = impatient().toString();
        for (List<String> command : List.of(List.of("worker", "--db-url", "jdbc:postgresql://127.0.0.1:1/x"),
                List.of("gateway", "--http-port", "0"), List.of("audit", "x"), List.of("dlq"))) {
            String[] args = Stream.concat(command.stream(),
                    Stream.of("--bootstrap-servers", "127.0.0.1:1", "--kafka-config", config))
                    .toArray(String[]::new);
            Run run = run(Map.of(), args);
            assertThat(run.exitCode()).as(command.toString()).isEqualTo(ExitCodes.ERROR);
            assertThat(run.err()).as(command.toString()).singleElement().asString()
                    .startsWith("lockstep: cannot reach Kafka at 127.0.0.1:1")
                    .endsWith("check --bootstrap-servers and --kafka-config, or start `lockstep dev`");
        }
    }

    @Test
    void anUnreadablePropertiesFileIsOneLineNamingWhereItWasNamed() throws Exception {
        Run kafkaConfig = run(Map.of(), "status", "x", "--kafka-config", "/nonexistent/kafka.properties");
        assertThat(kafkaConfig.exitCode()).isNotZero();
        assertThat(kafkaConfig.err()).singleElement().asString().contains("/nonexistent/kafka.properties")
                .contains("--kafka-config");
        Run lockstepConfig = run(Map.of("LOCKSTEP_CONFIG", "/nonexistent/lockstep.properties"), "status", "x");
        assertThat(lockstepConfig.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(lockstepConfig.err()).singleElement().asString().contains("LOCKSTEP_CONFIG=/nonexistent");
    }

    @Test
    void theLogLevelHoldsInEveryCommandAndVerboseShowsTheStackTrace() throws Exception {
        String[] status = {"status", "x", "--bootstrap-servers", "127.0.0.1:1", "--kafka-config",
                impatient().toString(), "--timeout", "2"};
        Run quiet = run(Map.of(), status);
        assertThat(quiet.exitCode()).isNotZero();
        assertThat(quiet.err()).as("unasked: one line, the Kafka clients' retries kept back").hasSize(1);

        Run debug = run(Map.of("LOCKSTEP_LOG_LEVEL", "DEBUG"), status);
        assertThat(debug.err()).as("DEBUG reaches the Kafka clients too")
                .anyMatch(line -> line.contains(" DEBUG ") && line.contains("o.a.k."));

        Run verbose = run(Map.of(), append(status, "--verbose"));
        assertThat(verbose.err()).anyMatch(line -> line.contains(" DEBUG "))
                .anyMatch(line -> line.startsWith("\tat "));

        Run worker = run(Map.of("LOCKSTEP_LOG_LEVEL", "DEBUG"), "worker", "--bootstrap-servers", "127.0.0.1:1",
                "--kafka-config", impatient().toString());
        assertThat(worker.err()).as("and in a service").anyMatch(line -> line.contains(" DEBUG "))
                .last().asString().startsWith("lockstep: cannot reach Kafka");
        Run bogus = run(Map.of("LOCKSTEP_LOG_LEVEL", "LOUD"), "status", "x");
        assertThat(bogus.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(bogus.err()).singleElement().asString().contains("LOCKSTEP_LOG_LEVEL=LOUD is not a log level");
    }

    private static String[] append(String[] args, String more) {
        String[] all = Arrays.copyOf(args, args.length + 1);
        all[args.length] = more;
        return all;
    }
}
