package dev.lockstep.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Python example of docs/client.md (confluent-kafka on librdkafka) against a real worker: with
 * {@code partitioner=murmur2_random} every command is answered; with librdkafka's default
 * partitioner, commands land on other partitions than their keys' and are answered {@code moved},
 * naming the right one and the partitioner to set.
 */
@Tag("host-tools") // needs Python's confluent-kafka (python3-confluent-kafka)
class PythonClientIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Path SCRIPT = Path.of("..", "docs", "examples", "python", "acquire.py");
    /** Debian's interpreter, where python3-confluent-kafka installs (a pyenv python on the PATH lacks it). */
    private static final String PYTHON = "/usr/bin/python3";

    @BeforeAll
    static void start() throws Exception {
        Process check = new ProcessBuilder(PYTHON, "-c", "import confluent_kafka").redirectErrorStream(true).start();
        String output = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!check.waitFor(30, TimeUnit.SECONDS) || check.exitValue() != 0) {
            throw new IllegalStateException("this test needs confluent-kafka for " + PYTHON
                    + ": apt-get install python3-confluent-kafka (.ci/run does). " + output);
        }
        assertThat(Files.exists(SCRIPT)).as(SCRIPT + " exists").isTrue();
        env.startWorker();
    }

    private static JsonNode run(String resource, String partitioner) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(PYTHON, SCRIPT.toString(),
                "--bootstrap", env.kafka().bootstrapServers(), "--command-topic", env.topics().commands(),
                "--reply-topic", env.topics().replies(), "--resource", resource, "--owner", "py-worker",
                "--ttl", "30", "--partitioner", partitioner));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("exit code of " + String.join(" ", command)).isZero();
        return Commands.parse(out.trim().getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void withTheMurmur2PartitionerEveryCommandIsAnswered() throws Exception {
        for (int i = 0; i < 6; i++) {
            JsonNode reply = run("py-job-" + i, "murmur2_random");
            assertThat(reply.path("outcome").asText()).as(reply.toString()).isEqualTo("acquired");
            assertThat(reply.path("lock").path("owner").asText()).isEqualTo("py-worker");
        }
    }

    @Test
    void withLibrdkafkasDefaultPartitionerMisplacedCommandsAreSentWhereTheyBelong() throws Exception {
        List<JsonNode> replies = new ArrayList<>();
        List<String> resources = IntStream.range(0, 12).mapToObj(i -> "crc-job-" + i).toList();
        for (String resource : resources) {
            replies.add(run(resource, "consistent_random"));
        }
        assertThat(replies).as("CRC32 and murmur2 disagree for some of twelve keys")
                .anyMatch(r -> r.path("outcome").asText().equals("moved"));
        for (JsonNode reply : replies) {
            if (reply.path("outcome").asText().equals("moved")) {
                assertThat(reply.path("partition").asInt()).isEqualTo(ResourcePartition.of(
                        reply.path("resource").asText(), LockstepExtension.PARTITIONS));
                assertThat(reply.path("detail").asText()).contains("partitioner=murmur2_random");
            } else {
                assertThat(reply.path("outcome").asText()).isEqualTo("acquired");
            }
        }
    }
}
