package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code target/lockstep}, the launcher the build puts beside the jar, run as a user runs it: it
 * starts the packaged jar, and gives each command its JVM settings (what the JVM says at start-up,
 * asked with {@code -Xlog:gc}, names the collector), and one-shot commands their class-data archive
 * (an AOT cache on a JVM of release 25 or later).
 */
class LauncherIT {

    private static final Path LAUNCHER = Path.of("..", "target", "lockstep").toAbsolutePath().normalize();

    private record Run(int exitCode, String out) {
    }

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @BeforeAll
    static void startWorker() {
        env.startWorker();
    }

    /** A lock command, answered by a real worker. */
    private static String[] status() {
        return new String[] {"status", "launcher-test", "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--command-topic", env.topics().commands(), "--reply-topic", env.topics().replies()};
    }

    /** A lock command that gets no answer: no broker listens there. */
    private static final String[] WITHOUT_BROKER = {"status", "launcher-test", "--bootstrap-servers",
            "127.0.0.1:1", "--timeout", "1"};

    private static Run run(String... args) throws IOException, InterruptedException {
        return runWith("-Xlog:gc", args);
    }

    private static Run runWith(String javaOpts, String... args) throws IOException, InterruptedException {
        return runOn(Path.of(System.getProperty("java.home")), javaOpts, args);
    }

    private static Run runOn(Path javaHome, String javaOpts, String... args) throws IOException, InterruptedException {
        assertThat(LAUNCHER).as("the build writes the launcher at package time (mvn package)").isExecutable();
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        command.addAll(List.of(args));
        Path elsewhere = Files.createTempDirectory("launcher");
        elsewhere.toFile().deleteOnExit();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).directory(elsewhere.toFile());
        builder.environment().put("LOCKSTEP_JAVA_OPTS", javaOpts);
        builder.environment().put("JAVA_HOME", javaHome.toString());
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
        String archive = thisBuild() + "-jdk" + Runtime.version().feature() + "\\.jsa";
        assertThat(runWith("", WITHOUT_BROKER).exitCode()).isEqualTo(ExitCodes.ERROR);
        // A command without its answer records nothing: it left neither a record nor an archive.
        assertThat(archives(archive + ".*")).isEmpty();

        assertThat(runWith("", status()).exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        // Made in the background from the classes that command loaded.
        awaitArchive(archive);
        Run run = runWith("-Xlog:class+load", status());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(run.out()).contains("picocli.CommandLine source: shared objects file")
                .contains("dev.lockstep.cli.LockstepCli source: shared objects file")
                .contains("org.apache.kafka.clients.producer.KafkaProducer source: shared objects file")
                .contains("com.fasterxml.jackson.databind.ObjectMapper source: shared objects file");
    }

    @Test
    @Tag("host-tools") // needs a JDK of release 25 or later beside the one running the tests
    void onAJvmOfRelease25OrLaterTheArchiveIsAnAotCacheRecordedByAnAnsweredCommand() throws Exception {
        Path jdk = JavaHomes.release25OrLater();
        String archive = thisBuild() + "-jdk[0-9]+\\.aot";
        Run help = runOn(jdk, "", "status", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).doesNotContain("AOTConfiguration");
        assertThat(runOn(jdk, "", WITHOUT_BROKER).exitCode()).isEqualTo(ExitCodes.ERROR);
        // Neither help nor a command without its answer records: no record, no archive.
        assertThat(archives(archive + ".*")).isEmpty();

        assertThat(runOn(jdk, "", status()).exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        awaitArchive(archive);
        Run run = runOn(jdk, "-Xlog:class+load", status());
        assertThat(run.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(run.out()).contains("dev.lockstep.cli.LockstepCli source: shared objects file")
                .contains("org.apache.kafka.clients.producer.KafkaProducer source: shared objects file")
                .contains("com.fasterxml.jackson.databind.ObjectMapper source: shared objects file");
    }

    /** The launcher names archives after the jar's size and modification time (seconds): this build's. */
    private static String thisBuild() throws IOException {
        Path jar = LAUNCHER.resolveSibling("lockstep.jar");
        return "lockstep-" + Files.size(jar) + "-" + Files.getLastModifiedTime(jar).to(TimeUnit.SECONDS);
    }

    private static List<String> archives(String pattern) throws IOException {
        try (Stream<Path> files = Files.list(LAUNCHER.getParent())) {
            return files.map(file -> file.getFileName().toString()).filter(name -> name.matches(pattern)).toList();
        }
    }

    private static void awaitArchive(String pattern) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> !archives(pattern).isEmpty());
    }
}
