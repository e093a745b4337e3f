package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * {@code lockstep dev --brokers 3}, by hand as a user tries it, in a real child JVM: three brokers
 * in processes of their own, each line naming its address, node ID and process ID; topics of three
 * replicas, two in sync; a broker killed with SIGKILL while the CLI still acquires, started again by
 * dev; SIGTERM stops dev and its brokers. In {@code mvn -Pcluster verify} (tag {@code cluster}).
 */
@Tag("cluster")
class DevClusterIT {

    private static final Pattern BROKER = Pattern.compile("Kafka broker (\\d) running at 127\\.0\\.0\\.1:(\\d+), "
            + "node ID (\\d), pid (\\d+)");

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void threeBrokersOneKilledAndStartedAgainWhileTheCliAcquires() throws Exception {
        int port = threeFreePorts();
        Path dataDir = Files.createTempDirectory("lockstep-devcluster-");
        int httpPort;
        try (ServerSocket http = new ServerSocket(0)) {
            httpPort = http.getLocalPort();
        }
        Process dev = LockstepProcess.start(dataDir.resolve("dev.stderr").toFile(), "dev", "--brokers", "3",
                "--kafka-port", Integer.toString(port), "--data-dir", dataDir.toString(), "--db-url",
                env.database().jdbcUrl(), "--http-port", Integer.toString(httpPort));
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> new BufferedReader(new InputStreamReader(dev.getInputStream(),
                StandardCharsets.UTF_8)).lines().forEach(lines::add));
        reader.setDaemon(true);
        reader.start();
        try {
            Awaitility.await().atMost(Duration.ofSeconds(120)).until(() -> lines.stream()
                    .anyMatch(line -> line.startsWith("lockstep dev ready")));
            String bootstrap = "127.0.0.1:" + port + ",127.0.0.1:" + (port + 1) + ",127.0.0.1:" + (port + 2);
            assertThat(lines).filteredOn(line -> line.startsWith("lockstep dev ready")).singleElement().asString()
                    .contains("kafka " + bootstrap);
            assertThat(lines.stream().map(BROKER::matcher).filter(Matcher::find).map(m -> m.group(1) + "@" + m.group(2)))
                    .containsExactly("1@" + port, "2@" + (port + 1), "3@" + (port + 2));
            long killed = pidOf(lines, "1").orElseThrow();
            assertThat(dev.descendants().map(ProcessHandle::pid)).as("the brokers are dev's children").contains(killed);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                ConfigResource commands = new ConfigResource(ConfigResource.Type.TOPIC, "lock.commands");
                Config config = admin.describeConfigs(Set.of(commands)).all().get(30, TimeUnit.SECONDS).get(commands);
                assertThat(config.get("min.insync.replicas").value()).isEqualTo("2");
                assertThat(admin.describeTopics(Set.of("lock.commands")).allTopicNames().get(30, TimeUnit.SECONDS)
                        .get("lock.commands").partitions()).allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
            }
            assertThat(acquire(bootstrap, "payment:42")).contains("\"outcome\":\"acquired\"");

            ProcessHandle.of(killed).orElseThrow().destroyForcibly();
            assertThat(acquire(bootstrap, "payment:43")).as("two brokers of three answer")
                    .contains("\"outcome\":\"acquired\"");
            Awaitility.await().atMost(Duration.ofSeconds(90)).until(() -> pidOf(lines, "1")
                    .filter(pid -> pid != killed).isPresent());
            assertThat(lines).anyMatch(line -> line.startsWith("Kafka broker 1 exited"));

            dev.destroy(); // SIGTERM
            assertThat(dev.waitFor(90, TimeUnit.SECONDS)).as("dev exits after SIGTERM").isTrue();
            assertThat(dev.exitValue()).isZero();
            Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> lines.stream().map(BROKER::matcher)
                    .filter(Matcher::find).map(m -> ProcessHandle.of(Long.parseLong(m.group(4))))
                    .noneMatch(handle -> handle.isPresent() && handle.get().isAlive()));
        } finally {
            dev.descendants().forEach(ProcessHandle::destroyForcibly);
            dev.destroyForcibly();
        }
    }

    /** The latest process ID dev printed for the broker. */
    private static Optional<Long> pidOf(List<String> lines, String id) {
        Optional<Long> pid = Optional.empty();
        for (String line : lines) {
            Matcher m = BROKER.matcher(line);
            if (m.find() && m.group(1).equals(id)) {
                pid = Optional.of(Long.parseLong(m.group(4)));
            }
        }
        return pid;
    }

    private static String acquire(String bootstrap, String resource) {
        StringWriter reply = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = LockstepCli.commandLine(Map.of("LOCKSTEP_BOOTSTRAP_SERVERS", bootstrap));
        cli.setOut(new PrintWriter(reply));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute("acquire", resource, "--owner", "worker-1", "--ttl", "30", "--timeout", "60");
        assertThat(code).as("exit code; stderr: %s", err).isZero();
        return reply.toString();
    }

    /** A port whose next two are free too. */
    private static int threeFreePorts() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base;
            try (ServerSocket socket = new ServerSocket(0)) {
                base = socket.getLocalPort();
            }
            if (base + 2 < 65536 && free(base) && free(base + 1) && free(base + 2)) {
                return base;
            }
        }
        throw new IllegalStateException("no three consecutive free ports on 127.0.0.1");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
