package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code target/lockstep}, the launcher the build puts beside the jar, run as a user runs it: it
 * starts the packaged jar, and gives each command its JVM settings (what the JVM says at start-up,
 * asked with {@code -Xlog:gc}, names the collector), and one-shot commands their class-data archive.
 */
class LauncherIT {

    private static final Path LAUNCHER = Path.of("target", "lockstep").toAbsolutePath();

    private record Run(int exitCode, String out) {
    }

    private static Run run(String... args) throws IOException, InterruptedException {
        return runWith("-Xlog:gc", args);
    }

    private static Run runWith(String javaOpts, String... args) throws IOException, InterruptedException {
        assertThat(LAUNCHER).as("the build writes the launcher at package time (mvn package)").isExecutable();
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        command.addAll(List.of(args));
        Path elsewhere = Files.createTempDirectory("launcher");
        elsewhere.toFile().deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).directory(elsewhere.toFile());
        builder.environment().put("LOCKSTEP_JAVA_OPTS", javaOpts);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(process.exitValue(), out);
    }

    @Test
    void theLauncherRunsThePackagedJarFromAnyDirectory() throws Exception {
        Run version = run("--version");
        assertThat(version.exitCode()).isZero();
        assertThat(version.out()).contains("lockstep");
    }

    @Test
    void batchJobsOverTheLogRunUnderTheThroughputCollectorAndTheRestUnderTheJvmsChoice() throws Exception {
        assertThat(run("replay", "--help").out()).contains("Using Parallel");
        assertThat(run("audit", "--help").out()).contains("Using Parallel");
        assertThat(run("bench", "--replay", "--help").out()).contains("Using Parallel");
        // The JVM's own choice otherwise (G1 here, Serial on a one-core machine), whatever it is.
        assertThat(run("bench", "--help").out()).contains("Using ").doesNotContain("Using Parallel");
        assertThat(run("status", "--help").out()).contains("Using ").doesNotContain("Using Parallel");
    }

    @Test
    void oneShotCommandsGetAClassDataArchiveThatKeepsPicocliToo() throws Exception {
        assertThat(run("status", "--help").exitCode()).isZero();
        // Made in the background from the classes the first run after the build loaded.
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> {
            try (Stream<Path> files = Files.list(LAUNCHER.getParent())) {
                return files.anyMatch(file -> file.getFileName().toString().matches("lockstep-[0-9]+-[0-9]+\\.jsa"));
            }
        });
        Run run = runWith("-Xlog:class+load", "status", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("picocli.CommandLine source: shared objects file")
                .contains("dev.lockstep.cli.LockstepCli source: shared objects file");
    }
}
