package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.LockstepProcess;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.testkit.TopicCollector;
import java.io.File;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A caller that gives up on an acquire leaves nothing behind. While no worker runs, acquires time
 * out on the caller's side (the library's acquire and tryAcquire, the CLI, exec); when a worker
 * comes back it applies each acquire, grants it, and applies the cancellation published right
 * after it on the same partition: the lock is free at once, not held for the acquire's TTL, and
 * the lease events say which acquire each release cancels. A lease the owner held before its
 * cancelled acquire stays.
 */
class CancellationIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockClientSettings settings(Duration timeout) {
        return LockClientSettings.defaults(env.kafka()).withTopics(env.topics()).withRequestTimeout(timeout);
    }

    private static String[] cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--bootstrap-servers", env.kafka().bootstrapServers(), "--command-topic",
                env.topics().commands(), "--reply-topic", env.topics().replies(), "--timeout", "2"));
        return all.toArray(String[]::new);
    }

    @Test
    void acquiresTheirCallersGaveUpOnAreReleasedRightAfterTheyAreGranted() throws Exception {
        File stderr = Files.createTempFile("cancel", ".stderr").toFile();
        try (TopicCollector events = env.collect(env.topics().events());
                LockClient impatient = LockClient.start(settings(Duration.ofSeconds(2)))) {
            // No worker: every caller gives up.
            assertThatThrownBy(() -> impatient.blocking().acquire("cancel-acquire", "o1", Duration.ofHours(1)))
                    .isInstanceOf(LockTimeoutException.class).hasMessageContaining("cancelled")
                    .satisfies(e -> assertThat(((LockTimeoutException) e).cancelled()).isTrue());
            assertThatThrownBy(() -> impatient.blocking().tryAcquire("cancel-try", "o1", Duration.ofHours(1),
                    Duration.ofSeconds(3))).isInstanceOf(LockTimeoutException.class);
            Process cliAcquire = LockstepProcess.start(stderr, cli("acquire", "cancel-cli", "--owner", "o1", "--ttl",
                    "3600"));
            List<String> execArgs = new ArrayList<>(List.of(cli("exec", "cancel-exec", "--owner", "o1",
                    "--ttl", "3600", "--wait", "1")));
            execArgs.addAll(List.of("--", "true"));
            Process exec = LockstepProcess.start(stderr, execArgs.toArray(String[]::new));
            assertThat(cliAcquire.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(exec.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(cliAcquire.exitValue()).as(Files.readString(stderr.toPath())).isEqualTo(14);
            assertThat(exec.exitValue()).as(Files.readString(stderr.toPath())).isEqualTo(14);

            try (RunningWorker worker = env.startWorker();
                    LockClient client = LockClient.start(settings(Duration.ofSeconds(30)))) {
                for (String resource : List.of("cancel-acquire", "cancel-try", "cancel-cli", "cancel-exec")) {
                    List<LeaseEvent> held = events.await(r -> EventCodec.decode(r.value()).resource().equals(resource)
                            && EventCodec.decode(r.value()).kind() == LeaseEvent.Kind.RELEASED, 1).stream()
                            .map(r -> EventCodec.decode(r.value())).toList();
                    assertThat(held.get(0).cancels()).as(resource + ": the release names the acquire it cancels")
                            .isPresent();
                    assertThat(events.matching(r -> EventCodec.decode(r.value()).resource().equals(resource)
                            && EventCodec.decode(r.value()).kind() == LeaseEvent.Kind.GRANTED)).as(resource + ": granted")
                            .hasSize(1);
                    assertThat(client.blocking().status(resource)).as(resource + ": free at once, not in an hour")
                            .isEqualTo(new Verdict.NotFound());
                }
            }
        }
    }

    @Test
    void aLeaseItsOwnerHeldBeforeTheCancelledAcquireStays() throws Exception {
        long token;
        try (RunningWorker worker = env.startWorker(); LockClient client = LockClient.start(settings(Duration.ofSeconds(30)))) {
            Verdict first = client.blocking().acquire("cancel-held", "o1", Duration.ofMinutes(10));
            assertThat(first).isInstanceOf(Verdict.Acquired.class);
            token = ((Verdict.Acquired) first).lease().fencingToken();
        }
        try (LockClient impatient = LockClient.start(settings(Duration.ofSeconds(2)))) {
            assertThatThrownBy(() -> impatient.blocking().acquire("cancel-held", "o1", Duration.ofMinutes(10)))
                    .isInstanceOf(LockTimeoutException.class);
        }
        try (RunningWorker worker = env.startWorker(); LockClient client = LockClient.start(settings(Duration.ofSeconds(30)))) {
            // The second acquire extended the first lease (same owner); its cancellation leaves that lease alone.
            Verdict status = client.blocking().status("cancel-held");
            assertThat(status).isInstanceOf(Verdict.Locked.class);
            assertThat(((Verdict.Locked) status).lease().fencingToken()).isEqualTo(token);
        }
    }
}
