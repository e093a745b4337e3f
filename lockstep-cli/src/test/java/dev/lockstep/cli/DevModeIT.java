package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The README's promise, in a real child JVM: {@code lockstep dev} in one terminal,
 * {@code lockstep acquire payment:42 --owner worker-1 --ttl 30} in another, and SIGTERM stopping
 * the worker cleanly with exit code 0.
 */
class DevModeIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void devModeAnswersTheReadmeExampleAndStopsCleanlyOnSigterm() throws Exception {
        int port;
        int httpPort;
        try (ServerSocket socket = new ServerSocket(0); ServerSocket http = new ServerSocket(0)) {
            port = socket.getLocalPort();
            httpPort = http.getLocalPort();
        }
        Path dataDir = Files.createTempDirectory("lockstep-devmode-");
        Process dev = LockstepProcess.start(dataDir.resolve("dev.stderr").toFile(), "dev", "--kafka-port",
                Integer.toString(port), "--data-dir", dataDir.toString(), "--db-url", env.database().jdbcUrl(),
                "--http-port", Integer.toString(httpPort));
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(dev.getInputStream(), StandardCharsets.UTF_8));
            String ready = CompletableFuture.supplyAsync(() -> out.lines()
                    .filter(line -> line.startsWith("lockstep dev ready"))
                    .findFirst().orElse("exited before it was ready")).get(90, TimeUnit.SECONDS);
            assertThat(ready).contains("kafka 127.0.0.1:" + port).contains("database ")
                    .contains("http http://127.0.0.1:" + httpPort);

            StringWriter reply = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine cli = LockstepCli.commandLine(Map.of("LOCKSTEP_BOOTSTRAP_SERVERS", "127.0.0.1:" + port));
            cli.setOut(new PrintWriter(reply));
            cli.setErr(new PrintWriter(err));
            // Right after the ready line, with the client's default timeout: the worker owns its partitions.
            int code = cli.execute("acquire", "payment:42", "--owner", "worker-1", "--ttl", "30");
            assertThat(code).as("exit code; stderr: %s", err).isZero();
            assertThat(reply.toString()).contains("\"outcome\":\"acquired\"").contains("\"owner\":\"worker-1\"");
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> readiness = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort
                    + "/health/ready")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(readiness.statusCode()).as(readiness.body()).isEqualTo(200);
            // Counted when the broker acknowledged the reply, which the caller may have read a moment before.
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body())
                    .contains("lockstep_commands_total{outcome=\"acquired\",type=\"acquire\"} 1.0"));

            dev.destroy(); // SIGTERM
            assertThat(dev.waitFor(60, TimeUnit.SECONDS)).as("dev exits after SIGTERM").isTrue();
            assertThat(dev.exitValue()).isZero();
        } finally {
            dev.destroyForcibly();
        }
    }
}
