package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.audit.Audit;
import dev.lockstep.audit.Hold;
import dev.lockstep.audit.Holds;
import dev.lockstep.cli.LockstepCli;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.history.History;
import dev.lockstep.history.HistoryChecker;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.worker.WorkerSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * {@code lockstep audit} on a real run: for every resource its holds are those the replies told
 * (owner, token, interval); {@code --at} on the exact grant and end instants; the HTML timeline
 * rendered by a real headless browser shows every hold's owner and token.
 */
class AuditIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static TopicNames topics;
    private static Map<String, List<HistoryChecker.SeenLease>> seen;

    @BeforeAll
    static void run() {
        topics = env.topics().suffixed("-audit");
        LockstepExtension.createTopics(env.kafka(), topics);
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("audit"));
                Workload load = Workload.start(env.kafka(), topics.commands(), 11, 6, 5, Duration.ofMillis(10))) {
            load.awaitPublished(2_500);
            History history = Histories.await(env.kafka(), topics, load.finish(), Duration.ofSeconds(60));
            HistoryChecker.check(history).assertSafe();
            ReplayReport replay = new Replay(env.kafka(), env.database(), topics).run(Optional.empty(), TimeWindow.ALL,
                    (read, total) -> { });
            assertThat(replay.divergences()).as(replay.text()).isEmpty();
            seen = HistoryChecker.leasesSeen(history);
        }
    }

    @Test
    void everyResourcesHoldsAreTheLeasesItsRepliesTold() {
        assertThat(seen).hasSizeGreaterThanOrEqualTo(3);
        Audit audit = new Audit(env.kafka(), topics.events());
        int holds = 0;
        for (var entry : seen.entrySet()) {
            // The audit tells the partition's time (the events'), the replies' leases name it at their grants.
            List<String> audited = audit.resource(entry.getKey()).all().stream()
                    .map(h -> h.owner() + " #" + h.fencingToken() + " from " + h.acquiredAt()).toList();
            assertThat(audited).as(entry.getKey()).containsExactlyElementsOf(entry.getValue().stream()
                    .map(lease -> lease.owner() + " #" + lease.fencingToken() + " from " + lease.dated()).toList());
            holds += audited.size();
        }
        assertThat(holds).as("holds compared").isGreaterThan(50);
    }

    @Test
    void atTheGrantInstantTheHoldIsThereAndAtItsEndItIsNot() {
        String resource = seen.keySet().iterator().next();
        Holds holds = new Audit(env.kafka(), topics.events()).resource(resource);
        Hold hold = holds.all().stream().filter(h -> h.until().isAfter(h.acquiredAt())).findFirst().orElseThrow();
        Cli atGrant = cli("audit", resource, "--at", hold.acquiredAt().toString(), "--format", "json");
        assertThat(atGrant.code()).isZero();
        assertThat(atGrant.out()).contains("\"fencing_token\":" + hold.fencingToken() + ",")
                .contains("\"owner\":\"" + hold.owner() + "\"");
        Cli atEnd = cli("audit", resource, "--at", hold.until().toString(), "--format", "json");
        assertThat(atEnd.out()).doesNotContain("\"fencing_token\":" + hold.fencingToken() + ",");
        assertThat(holds.at(hold.until().minusMillis(1))).map(Hold::fencingToken).contains(hold.fencingToken());
    }

    @Tag("host-tools") // needs a headless chromium
    @Test
    void theHtmlTimelineShowsEveryHoldsOwnerAndTokenInARealBrowser() throws Exception {
        Path html = Files.createTempFile("lockstep-audit-", ".html");
        String prefix = seen.keySet().iterator().next().substring(0, 2);
        assertThat(cli("audit", "--prefix", prefix, "--format", "html", "--output", html.toString()).code()).isZero();
        String dom = renderedDom(html);
        int checked = 0;
        for (var entry : seen.entrySet()) {
            if (!entry.getKey().startsWith(prefix)) {
                continue;
            }
            assertThat(dom).contains(entry.getKey() + " (" + entry.getValue().size() + " holds)");
            for (HistoryChecker.SeenLease lease : entry.getValue()) {
                assertThat(dom).contains("data-owner=\"" + lease.owner() + "\" data-token=\"" + lease.fencingToken() + "\"")
                        .contains(lease.owner() + " · #" + lease.fencingToken());
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(50);
        Audit audit = new Audit(env.kafka(), topics.events());
        int waited = 0;
        for (String resource : seen.keySet()) {
            if (!resource.startsWith(prefix)) {
                continue;
            }
            for (Hold hold : audit.resource(resource).all()) {
                if (hold.waited().isPresent()) {
                    assertThat(dom).as("its wait drawn").contains("data-token=\"" + hold.fencingToken()
                            + "\" data-waited=\"" + hold.waited().get().toMillis() + "\"");
                    waited++;
                }
            }
        }
        assertThat(waited).as("holds granted to waiters").isPositive();
    }

    /** The page's DOM after its script ran, as headless Chromium leaves it. */
    private static String renderedDom(Path html) throws IOException, InterruptedException {
        Path chromium = List.of(Path.of("/usr/bin/chromium"), Path.of("/usr/bin/chromium-browser")).stream()
                .filter(Files::isExecutable).findFirst().orElseThrow(() -> new AssertionError(
                        "this test renders the audit timeline in a real browser: install Chromium "
                                + "(apt-get install chromium; .ci/run does)"));
        Path out = Files.createTempFile("lockstep-audit-dom-", ".html");
        Process browser = new ProcessBuilder(chromium.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--dump-dom", html.toUri().toString())
                .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(browser.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
        assertThat(browser.exitValue()).isZero();
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private record Cli(int code, String out) {
    }

    private static Cli cli(String... args) {
        List<String> full = new ArrayList<>(List.of(args));
        full.addAll(List.of("--bootstrap-servers", env.kafka().bootstrapServers(), "--events-topic", topics.events()));
        StringWriter out = new StringWriter();
        CommandLine cli = LockstepCli.commandLine(Map.of());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(new StringWriter()));
        return new Cli(cli.execute(full.toArray(String[]::new)), out.toString());
    }
}
