package dev.lockstep.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.testkit.LockstepExtension;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The batch-orchestrator example, run for real: three runner processes compete for 50 jobs; one
 * of them freezes (SIGSTOP) while holding job-7 until its lease has expired.
 */
class BatchOrchestratorIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int JOBS = 50;
    private static final String STALLED_JOB = "job-7";

    @Test
    void everyJobIsRecordedOnceAndTheStalledRunnersStaleTokenIsRejected() throws Exception {
        env.startWorker();
        String jdbcUrl = env.database().jdbcUrl();
        try (FencedJobStore store = new FencedJobStore(jdbcUrl)) {
            store.createTables();
        }
        List<Process> runners = new ArrayList<>();
        List<List<String>> outputs = new ArrayList<>();
        Path logs = Files.createTempDirectory("runners");
        try {
            runJobs(runners, outputs, jdbcUrl, logs);
        } finally {
            // A failed run must not leave a frozen runner behind: it would hold its JVM for ever.
            runners.forEach(Process::destroyForcibly);
        }
    }

    private static void runJobs(List<Process> runners, List<List<String>> outputs, String jdbcUrl, Path logs)
            throws Exception {
        // Runner 1 starts alone, takes job-7 first and freezes holding it; then the others start.
        startRunner(1, jdbcUrl, logs, runners, outputs);
        Process stalled = runners.get(0);
        List<String> stalledOutput = outputs.get(0);
        await().atMost(Duration.ofSeconds(60)).until(() -> stalledOutput.stream().anyMatch(l -> l.startsWith("STALLED")));
        long stalledToken = Long.parseLong(stalledOutput.stream().filter(l -> l.startsWith("STALLED")).findFirst()
                .orElseThrow().split(" ")[2]);
        startRunner(2, jdbcUrl, logs, runners, outputs);
        startRunner(3, jdbcUrl, logs, runners, outputs);
        // Resume runner 1 only once its lease has expired and another runner holds job-7 with a
        // greater token: the pause has outlived the lease.
        await().atMost(Duration.ofSeconds(60)).until(() -> highestToken(STALLED_JOB) > stalledToken);
        new ProcessBuilder("kill", "-CONT", Long.toString(stalled.pid())).start().waitFor();

        for (Process runner : runners) {
            assertThat(runner.waitFor(120, TimeUnit.SECONDS)).as("runner finished").isTrue();
            assertThat(runner.exitValue()).isZero();
        }
        assertThat(stalledOutput).contains("LOST " + STALLED_JOB + " EXPIRED " + stalledToken)
                .contains("REJECTED " + STALLED_JOB + " " + stalledToken);

        try (Connection c = env.jdbc(); Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT count(*), count(completed_by) FROM example_jobs")) {
                rs.next();
                assertThat(rs.getInt(1)).isEqualTo(JOBS);
                assertThat(rs.getInt(2)).isEqualTo(JOBS);
            }
            try (ResultSet rs = st.executeQuery("SELECT completed_by, completed_token FROM example_jobs WHERE job = '"
                    + STALLED_JOB + "'")) {
                rs.next();
                assertThat(rs.getString(1)).isNotEqualTo("runner-1");
                assertThat(rs.getLong(2)).isGreaterThan(stalledToken);
            }
            try (ResultSet rs = st.executeQuery("SELECT job, runner, fencing_token FROM example_rejections "
                    + "WHERE runner = 'runner-1'")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(STALLED_JOB);
                assertThat(rs.getLong(3)).isEqualTo(stalledToken);
            }
        }
        List<String> completions = new ArrayList<>();
        outputs.forEach(out -> out.stream().filter(l -> l.startsWith("COMPLETED")).map(l -> l.split(" ")[1])
                .forEach(completions::add));
        assertThat(completions).hasSize(JOBS).doesNotHaveDuplicates();
    }

    private static long highestToken(String job) throws SQLException {
        try (Connection c = env.jdbc(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT highest_token FROM example_jobs WHERE job = '" + job + "'")) {
            return rs.next() ? rs.getLong(1) : 0;
        }
    }

    private static void startRunner(int i, String jdbcUrl, Path logs, List<Process> runners,
            List<List<String>> outputs) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), JobRunner.class.getName(),
                env.kafka().bootstrapServers(), env.topics().commands(), env.topics().replies(), jdbcUrl,
                "runner-" + i, Integer.toString(JOBS), "2"));
        if (i == 1) {
            command.add(STALLED_JOB);
        }
        File stderr = logs.resolve("runner-" + i + ".stderr").toFile();
        Process process = new ProcessBuilder(command).redirectError(stderr).start();
        runners.add(process);
        outputs.add(collect(process));
    }

    private static List<String> collect(Process process) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)).lines().forEach(lines::add));
        reader.setDaemon(true);
        reader.start();
        return lines;
    }
}
