package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class DevConnectionTest {

    private static final DevConnection.Database DATABASE = new DevConnection.Database(
            "jdbc:postgresql://127.0.0.1:54320/postgres?user=postgres", Optional.empty(), Optional.of("s3cret"));

    @Test
    void aRunningDevIsFoundUntilItCloses(@TempDir Path dir) throws IOException {
        try (DevConnection written = DevConnection.write(dir, "127.0.0.1:19092", DATABASE,
                Optional.of("http://127.0.0.1:8080"))) {
            Path file = DevConnection.fileIn(dir);
            assertThat(Files.getPosixFilePermissions(file)).as("the URL may carry a password: its user's only")
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(DevConnection.running(file)).contains(written);
            assertThat(written.pid()).isEqualTo(ProcessHandle.current().pid());
        }
        assertThat(DevConnection.fileIn(dir)).doesNotExist();
        assertThat(DevConnection.running(DevConnection.fileIn(dir))).isEmpty();
    }

    @Test
    void theFileOfADevThatIsGoneIsIgnored(@TempDir Path dir) throws IOException, InterruptedException {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Files.writeString(DevConnection.fileIn(dir), "pid=" + gone.pid() + "\nbootstrap-servers=127.0.0.1:9092\n"
                + "db-url=jdbc:postgresql://127.0.0.1:54320/postgres\n");

        assertThat(DevConnection.running(DevConnection.fileIn(dir))).isEmpty();
    }

    @Test
    void aFileWithoutItsFieldsIsIgnored(@TempDir Path dir) throws IOException {
        Files.writeString(DevConnection.fileIn(dir), "pid=" + ProcessHandle.current().pid() + "\n");

        assertThat(DevConnection.running(DevConnection.fileIn(dir))).isEmpty();
    }

    @Test
    void theEnvironmentNamesTheDataDirectory(@TempDir Path dir) {
        try (DevConnection written = DevConnection.write(dir, "127.0.0.1:19092", DATABASE, Optional.empty())) {
            ConfigDefaults defaults = new ConfigDefaults(Map.of("LOCKSTEP_DATA_DIR", dir.toString()));

            assertThat(defaults.runningDev()).contains(written);
            assertThat(new ConfigDefaults(Map.of("LOCKSTEP_DATA_DIR", dir.resolve("other").toString()))
                    .runningDev()).isEmpty();
        }
    }

    @Test
    void commandsGivenNoBrokerUseDevsButBenchStartsItsOwn(@TempDir Path dir) {
        try (DevConnection written = DevConnection.write(dir, "127.0.0.1:19092", DATABASE, Optional.empty())) {
            Map<String, String> env = Map.of("LOCKSTEP_DATA_DIR", dir.toString());

            assertThat(bootstrapOf(env, "status", "payment:42")).isEqualTo("127.0.0.1:19092");
            assertThat(bootstrapOf(env, "replay")).isEqualTo("127.0.0.1:19092");
            assertThat(bootstrapOf(env, "status", "payment:42", "--bootstrap-servers", "10.0.0.1:9092"))
                    .as("a flag wins").isEqualTo("10.0.0.1:9092");
            assertThat(bootstrapOf(Map.of("LOCKSTEP_DATA_DIR", dir.toString(), "LOCKSTEP_BOOTSTRAP_SERVERS", "10.0.0.2:9092"),
                    "status", "payment:42")).as("so does the environment").isEqualTo("10.0.0.2:9092");
            assertThat(bootstrapOf(env, "bench")).as("bench without the option starts a broker of its own").isNull();
        }
        assertThat(bootstrapOf(Map.of("LOCKSTEP_DATA_DIR", dir.toString()), "status", "payment:42"))
                .as("no dev: the built-in default applies later").isNull();
    }

    private static String bootstrapOf(Map<String, String> env, String... args) {
        CommandLine.ParseResult parsed = LockstepCli.commandLine(env).parseArgs(args);
        while (parsed.hasSubcommand()) {
            parsed = parsed.subcommand();
        }
        return parsed.commandSpec().findOption("--bootstrap-servers").getValue();
    }
}
