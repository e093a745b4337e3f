package dev.lockstep.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Python and Node clients' own suites (the shared protocol cases of clients/cases.json, held
 * leases, reply matching, cancellation) against a real worker and broker, run as their users run
 * them; and the Node client's TypeScript declarations compiled against their use.
 */
@Tag("host-tools") // needs Debian's python3-confluent-kafka, and Node with clients/node's packages (npm ci)
class ClientSuitesIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Path CLIENTS = Path.of("..", "clients").toAbsolutePath().normalize();
    /** Debian's interpreter, where python3-confluent-kafka installs (a pyenv python on the PATH lacks it). */
    private static final String PYTHON = "/usr/bin/python3";

    /** A suite's exit code and everything it printed. */
    private record Run(int exitCode, String output) {

        int count(Pattern pattern) {
            Matcher matcher = pattern.matcher(output);
            assertThat(matcher.find()).as("the summary line %s in:%n%s", pattern, output).isTrue();
            return Integer.parseInt(matcher.group(1));
        }
    }

    @BeforeAll
    static void start() {
        env.startWorker();
    }

    @Test
    void thePythonClientPassesItsSuite() throws Exception {
        Run run = run(List.of(PYTHON, "-m", "unittest", "discover", "-s", "tests", "-v"), CLIENTS.resolve("python"),
                Map.of("PYTHONPATH", CLIENTS.resolve("python") + ":" + CLIENTS.resolve("python").resolve("tests")));

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("\nOK");
        assertThat(run.count(Pattern.compile("Ran (\\d+) tests"))).as("every test ran").isGreaterThanOrEqualTo(21);
    }

    @Test
    void theNodeClientPassesItsSuite() throws Exception {
        Path node = CLIENTS.resolve("node");
        assertThat(node.resolve("node_modules").resolve("kafkajs")).as("the Node client's packages: npm ci --prefix "
                + node + " (.ci/run does)").isDirectory();
        List<String> command = new ArrayList<>(List.of("node", "--test"));
        try (Stream<Path> tests = Files.list(node.resolve("test"))) {
            tests.map(Path::toString).filter(name -> name.endsWith(".test.js")).sorted().forEach(command::add);
        }
        Run run = run(command, node, Map.of());

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.count(Pattern.compile("# fail (\\d+)"))).isZero();
        assertThat(run.count(Pattern.compile("# pass (\\d+)"))).as("every test ran").isGreaterThanOrEqualTo(19);
    }

    @Test
    void theNodeClientsTypeScriptDeclarationsFitTheirUse() throws Exception {
        Path node = CLIENTS.resolve("node");
        Path tsc = node.resolve("node_modules").resolve("typescript").resolve("bin").resolve("tsc");
        assertThat(tsc).as("TypeScript, a dev dependency of the Node client: npm ci --prefix " + node
                + " (.ci/run does)").isRegularFile();
        // test/types.ts uses every call as a TypeScript user would, await using included.
        Run run = run(List.of("node", tsc.toString(), "-p", "."), node, Map.of());

        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).doesNotContain("error TS");
    }

    private static Run run(List<String> command, Path directory, Map<String, String> more)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().putAll(more);
        builder.environment().put("LOCKSTEP_BOOTSTRAP", env.kafka().bootstrapServers());
        builder.environment().put("LOCKSTEP_COMMAND_TOPIC", env.topics().commands());
        builder.environment().put("LOCKSTEP_REPLY_TOPIC", env.topics().replies());
        builder.environment().put("LOCKSTEP_DEAD_LETTER_TOPIC", env.topics().deadLetters());
        // LOCKSTEP_PROXIED_BOOTSTRAP and LOCKSTEP_BROKER_LINK: a suite's client cut off from the broker
        builder.environment().putAll(env.brokerLink().environment());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(5, TimeUnit.MINUTES)).as("%s finishes", command).isTrue();
        return new Run(process.exitValue(), output);
    }
}
