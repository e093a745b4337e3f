package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ConfigDefaultsTest {

    @Test
    void namesEnvironmentVariablesAfterOptions() {
        assertThat(ConfigDefaults.envName("--db-url")).isEqualTo("LOCKSTEP_DB_URL");
        assertThat(ConfigDefaults.envName("--bootstrap-servers")).isEqualTo("LOCKSTEP_BOOTSTRAP_SERVERS");
    }

    @Test
    void flagBeatsEnvironmentBeatsFileBeatsDefault(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("lockstep.properties");
        Files.writeString(file, "bootstrap-servers=file:1\ncommand-topic=from.file\n");
        Map<String, String> env = Map.of("LOCKSTEP_CONFIG", file.toString(), "LOCKSTEP_BOOTSTRAP_SERVERS", "env:1");

        KafkaOptions fromEnv = parse(env);
        assertThat(fromEnv.bootstrapServers).isEqualTo("env:1");
        assertThat(fromEnv.commandTopic).isEqualTo("from.file");
        assertThat(fromEnv.replyTopic).isEqualTo("lock.replies");
        assertThat(parse(env, "--bootstrap-servers", "flag:1").bootstrapServers).isEqualTo("flag:1");
    }

    @Test
    void aLockCommandsClientsReportNoJmxMetricsUnlessTheKafkaConfigAsks(@TempDir Path dir) throws Exception {
        assertThat(parseClient(Map.of()).settings().kafka().clientProperties()).containsEntry("metric.reporters", "");

        Path config = dir.resolve("kafka.properties");
        Files.writeString(config, "metric.reporters=org.apache.kafka.common.metrics.JmxReporter\n");
        assertThat(parseClient(Map.of(), "--kafka-config", config.toString()).settings().kafka().clientProperties())
                .containsEntry("metric.reporters", "org.apache.kafka.common.metrics.JmxReporter");
    }

    @Test
    void aWrongFlagIsOneLineAndExitCodeTwo() {
        StringWriter err = new StringWriter();
        CommandLine cli = LockstepCli.commandLine(Map.of());
        cli.setErr(new PrintWriter(err));
        assertThat(cli.execute("status", "r", "--no-such-flag")).isEqualTo(ExitCodes.USAGE);
        assertThat(err.toString().strip()).startsWith("lockstep: Unknown option: '--no-such-flag'").doesNotContain("\n");
    }

    private static KafkaOptions parse(Map<String, String> env, String... args) {
        return parseClient(env, args).kafka;
    }

    private static ClientOptions parseClient(Map<String, String> env, String... args) {
        CommandLine cli = LockstepCli.commandLine(env);
        String[] full = new String[args.length + 2];
        full[0] = "status";
        full[1] = "r";
        System.arraycopy(args, 0, full, 2, args.length);
        CommandLine.ParseResult result = cli.parseArgs(full);
        LockCommands.Status status = (LockCommands.Status) result.subcommand().commandSpec().userObject();
        return status.client;
    }
}
