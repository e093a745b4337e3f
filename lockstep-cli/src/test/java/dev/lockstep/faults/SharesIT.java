package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.audit.Audit;
import dev.lockstep.audit.Hold;
import dev.lockstep.audit.Holds;
import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LockClient;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Semaphores and read-write locks through the Java client, on a real broker and database: never
 * more holders than the limit, each with its own permit and lease; a waiting writer keeps later
 * readers out and is granted when the readers leave, and the readers after it each get a token of
 * their own when it leaves; a replay reproduces every reply and event.
 */
class SharesIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockClient client;

    @BeforeAll
    static void start() {
        env.startWorker();
        client = env.startClient();
    }

    @Test
    void aSemaphoreOfTwoNeverHasMoreHoldersAndServesEveryCaller() throws Exception {
        Share two = Share.shared(2);
        AtomicInteger holding = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        Set<String> permits = ConcurrentHashMap.newKeySet();
        ExecutorService callers = Executors.newFixedThreadPool(6);
        List<CompletableFuture<Integer>> done = new ArrayList<>();
        for (int caller = 0; caller < 6; caller++) {
            String owner = "job-runner-" + caller;
            done.add(CompletableFuture.supplyAsync(() -> {
                int held = 0;
                for (int round = 0; round < 3; round++) {
                    Optional<HeldLease> lease = client.blocking().tryAcquire("sem:nightly", owner, Duration.ofSeconds(10),
                            Duration.ofSeconds(30), two);
                    if (lease.isEmpty()) {
                        continue;
                    }
                    try (HeldLease permit = lease.get()) {
                        most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                        permits.add(owner + "@" + permit.fencingToken());
                        Thread.sleep(150);
                        holding.decrementAndGet();
                        held++;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return held;
                    }
                }
                return held;
            }, callers));
        }
        int held = 0;
        for (CompletableFuture<Integer> caller : done) {
            held += caller.get(90, TimeUnit.SECONDS);
        }
        callers.shutdown();
        assertThat(held).as("every caller's every round was served").isEqualTo(18);
        assertThat(most.get()).as("never more than the limit, and the limit used").isEqualTo(2);
        assertThat(permits).hasSize(18);
        // The auditor's view, from the events: 18 holds, side by side two at a time at most.
        Holds holds = new Audit(env.kafka(), env.topics().events()).resource("sem:nightly");
        assertThat(holds.all()).hasSize(18);
        assertThat(holds.all().stream().mapToInt(hold -> holds.allAt(hold.acquiredAt()).size()).max().orElse(0))
                .isEqualTo(2);
        assertThat(holds.all()).extracting(Hold::exclusive).containsOnly(false);
        assertReplayed();
    }

    @Test
    void aWaitingWriterKeepsLaterReadersOutUntilItHasWritten() throws Exception {
        Share reader = Share.shared(Share.MAX_LIMIT);
        HeldLease first = client.blocking().tryAcquire("doc:1", "reader-1", Duration.ofSeconds(30), Duration.ZERO,
                reader).orElseThrow();
        HeldLease second = client.blocking().tryAcquire("doc:1", "reader-2", Duration.ofSeconds(30), Duration.ZERO,
                reader).orElseThrow();
        assertThat(List.of(first.lease().permit(), second.lease().permit())).containsExactly(0, 1);
        CompletableFuture<Optional<HeldLease>> writer = client.tryAcquire("doc:1", "writer", Duration.ofSeconds(30),
                Duration.ofSeconds(30));
        Thread.sleep(500);
        CompletableFuture<Optional<HeldLease>> late = client.tryAcquire("doc:1", "reader-3", Duration.ofSeconds(30),
                Duration.ofSeconds(30), reader);
        CompletableFuture<Optional<HeldLease>> later = client.tryAcquire("doc:1", "reader-4", Duration.ofSeconds(30),
                Duration.ofSeconds(30), reader);
        Thread.sleep(500);
        Verdict.Locked status = (Verdict.Locked) client.blocking().status("doc:1");
        assertThat(status.holders()).extracting(Lease::owner).containsExactly("reader-1", "reader-2");
        assertThat(status.waiters()).isEqualTo(3);
        assertThat(writer).as("the readers hold").isNotDone();
        assertThat(late).as("behind the waiting writer, though readers hold").isNotDone();

        first.close();
        Thread.sleep(300);
        assertThat(writer).as("one reader still holds").isNotDone();
        second.close();
        HeldLease written = writer.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(written.lease().share()).isEqualTo(Share.EXCLUSIVE);
        Thread.sleep(300);
        assertThat(late).as("the writer holds").isNotDone();
        written.close();
        // Both readers come in when the writer leaves: the release grants the first, a hand-over
        // record the worker appends right after it the second, each with its own token.
        HeldLease third = late.get(10, TimeUnit.SECONDS).orElseThrow();
        HeldLease fourth = later.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(third.fencingToken()).isGreaterThan(written.fencingToken());
        assertThat(fourth.fencingToken()).isGreaterThan(third.fencingToken());
        assertThat(List.of(third.lease().permit(), fourth.lease().permit())).containsExactly(0, 1);
        assertThat(fourth.lease().acquiredAt()).isAfterOrEqualTo(third.lease().acquiredAt());
        third.close();
        fourth.close();
        assertReplayed();
    }

    private static void assertReplayed() {
        ReplayReport replay = new Replay(env.kafka(), env.database(), env.topics())
                .run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
    }
}
