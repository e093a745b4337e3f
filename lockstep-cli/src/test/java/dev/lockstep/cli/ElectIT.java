package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.client.LockClient;
import dev.lockstep.core.Verdict;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code lockstep elect} and {@code lockstep leader}, as real child processes: a leader killed
 * with SIGKILL is followed by the next candidate, whose job starts with a greater term; an observer
 * following the group sees each leader and the vacancy when the last one resigns.
 */
@Tag("host-tools") // needs util-linux's setsid
@Tag("serial") // candidates and their guards, timed
class ElectIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        env.startWorker();
    }

    private String[] cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        int split = all.indexOf("--");
        List<String> connection = List.of("--bootstrap-servers", env.kafka().bootstrapServers(), "--command-topic",
                env.topics().commands(), "--reply-topic", env.topics().replies(), "--events-topic",
                env.topics().events());
        all.addAll(split < 0 ? all.size() : split, connection);
        return all.toArray(String[]::new);
    }

    private Process elect(String candidate, Path log) {
        return elect("billing", candidate, log);
    }

    private Process elect(String group, String candidate, Path log) {
        return LockstepProcess.start(dir.resolve(candidate + ".stderr").toFile(), cli("elect", group,
                "--candidate", candidate, "--value", candidate + ":8080", "--ttl", "3", "--grace", "1", "--",
                "sh", "-c", "echo \"$LOCKSTEP_GROUP $LOCKSTEP_TERM $LOCKSTEP_VALUE\" >> " + log
                        + "; i=0; while [ ! -f " + dir.resolve("done") + " ] && [ $i -lt 600 ]; do sleep 0.1; "
                        + "i=$((i+1)); done"));
    }

    private static List<JsonNode> lines(Path file) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith("{") && line.endsWith("}")) {
                    lines.add(JSON.readTree(line));
                }
            }
        }
        return lines;
    }

    @Test
    void aLeaderKilledIsFollowedByTheNextCandidateAndAnObserverSeesEveryTerm() throws Exception {
        Path log = dir.resolve("jobs.log");
        Path followed = dir.resolve("follow.out");
        Process follower = LockstepProcess.startWithOutput(followed.toFile(), dir.resolve("follow.stderr").toFile(),
                cli("leader", "billing", "--follow"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(followed).size() == 1);
        assertThat(lines(followed).get(0).path("vacant").asBoolean()).as("nobody leads yet").isTrue();

        Process a = elect("a", log);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log) && Files.readAllLines(log).size() == 1);
        Process b = elect("b", log);
        Thread.sleep(1_500);
        assertThat(Files.readAllLines(log)).as("b waits while a leads").hasSize(1);
        String[] first = Files.readAllLines(log).get(0).split(" ");
        assertThat(first[0]).isEqualTo("billing");
        assertThat(first[2]).isEqualTo("a:8080");

        a.destroyForcibly();
        assertThat(a.waitFor(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readAllLines(log).size() == 2);
        String[] second = Files.readAllLines(log).get(1).split(" ");
        assertThat(second[2]).isEqualTo("b:8080");
        assertThat(Long.parseLong(second[1])).as("a greater term").isGreaterThan(Long.parseLong(first[1]));

        Files.createFile(dir.resolve("done"));
        assertThat(b.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(b.exitValue()).as("the job's exit code").isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(followed).size() == 4);
        follower.destroy();
        assertThat(follower.waitFor(30, TimeUnit.SECONDS)).isTrue();

        List<JsonNode> seen = lines(followed);
        assertThat(seen.get(1).path("value").asText()).isEqualTo("a:8080");
        assertThat(seen.get(1).path("term").asLong()).isEqualTo(Long.parseLong(first[1]));
        assertThat(seen.get(1).path("leader").asText()).startsWith("a/");
        assertThat(seen.get(2).path("value").asText()).isEqualTo("b:8080");
        assertThat(seen.get(2).path("term").asLong()).isEqualTo(Long.parseLong(second[1]));
        assertThat(seen.get(3).path("vacant").asBoolean()).as("b resigned when its job ended").isTrue();
        assertThat(seen.get(3).path("term").asLong()).isEqualTo(Long.parseLong(second[1]));

        Process asked = LockstepProcess.startWithOutput(dir.resolve("leader.out").toFile(),
                dir.resolve("leader.stderr").toFile(), cli("leader", "billing"));
        assertThat(asked.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(asked.exitValue()).as("vacant").isEqualTo(ExitCodes.NOT_FOUND);
    }

    /**
     * A candidate that waited 8 s behind a leader killed with SIGKILL, and a few seconds more for its
     * lease to expire, with a TTL of 3 s: its term began when it was granted, and its command runs.
     */
    @Test
    void aCandidateThatWaitedLongerThanItsTtlRunsItsCommand() throws Exception {
        Path log = dir.resolve("patient.log");
        Process a = elect("patient", "a", log);
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log) && Files.readAllLines(log).size() == 1);
        Process b = elect("patient", "b", log);
        try (LockClient client = env.startClient()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> client.blocking().status("patient")
                    instanceof Verdict.Locked locked && locked.waiters() == 1);
        }
        Thread.sleep(8_000);
        a.destroyForcibly();
        assertThat(a.waitFor(10, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readAllLines(log).size() == 2);
        assertThat(Files.readAllLines(log).get(1)).endsWith(" b:8080");
        Thread.sleep(4_000); // longer than the TTL: a lease taken for expired would have ended the command by now
        assertThat(b.isAlive()).as("b still leads, running its command").isTrue();
        Files.createFile(dir.resolve("done"));
        assertThat(b.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(b.exitValue()).as("the command's exit code").isZero();
    }

    /** Without a command: it leads until stopped, says so on a line, and resigns on SIGTERM. */
    @Test
    void aCandidateWithoutACommandLeadsUntilStoppedAndResigns() throws Exception {
        Path said = dir.resolve("elect.out");
        Process leader = LockstepProcess.startWithOutput(said.toFile(), dir.resolve("elect.stderr").toFile(),
                cli("elect", "standby-group", "--candidate", "host-c", "--ttl", "30"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lines(said).size() == 1);
        JsonNode elected = lines(said).get(0);
        assertThat(elected.path("event").asText()).isEqualTo("elected");
        assertThat(elected.path("value").asText()).as("the candidate ID, by default").isEqualTo("host-c");
        assertThat(elected.path("owner").asText()).startsWith("host-c/");

        leader.destroy();
        assertThat(leader.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(leader.exitValue()).isZero();
        assertThat(lines(said).get(lines(said).size() - 1).path("reason").asText()).isEqualTo("resigned");
        Process asked = LockstepProcess.startWithOutput(dir.resolve("after.out").toFile(),
                dir.resolve("after.stderr").toFile(), cli("leader", "standby-group"));
        assertThat(asked.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(asked.exitValue()).as("resigned at once, not left to expire in 30 s").isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(lines(dir.resolve("after.out")).get(0).path("vacant").asBoolean()).isTrue();
    }
}
