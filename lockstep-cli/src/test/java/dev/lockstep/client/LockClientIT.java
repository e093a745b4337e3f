package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import dev.lockstep.core.WaitEnd;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.TopicCollector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The client library against a real worker: correlation, timeouts, renewal, loss, retries. */
class LockClientIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockClient client;

    @BeforeAll
    static void start() {
        env.startWorker();
        client = LockClient.start(settings());
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    private static LockClientSettings settings() {
        return LockClientSettings.defaults(env.kafka()).withTopics(env.topics());
    }

    private static HeldLease acquire(LockClient c, String resource, String owner, Duration ttl) {
        return c.blocking().tryAcquire(resource, owner, ttl, Duration.ZERO).orElseThrow();
    }

    @Test
    void autoRenewalKeepsATwoSecondLeaseAliveForTenSeconds() throws Exception {
        try (HeldLease lease = acquire(client, "renew-10s", "w", Duration.ofSeconds(2))) {
            Instant end = Instant.now().plusSeconds(10);
            while (Instant.now().isBefore(end)) {
                Verdict status = client.blocking().status("renew-10s");
                assertThat(status).isInstanceOf(Verdict.Locked.class);
                assertThat(((Verdict.Locked) status).lease().fencingToken()).isEqualTo(lease.fencingToken());
                Thread.sleep(500);
            }
            assertThat(lease.isLost()).isFalse();
            assertThat(lease.expiresAt()).isAfter(Instant.now());
        }
        assertThat(client.blocking().status("renew-10s")).isEqualTo(new Verdict.NotFound());
    }

    @Test
    void aRenewerPausedPastExpiryFiresLost() throws Exception {
        HeldLease lease = acquire(client, "paused", "w", Duration.ofSeconds(2));
        // Stall the client's timer thread (as a long GC pause or a suspended VM would) for 3 s.
        client.scheduler().execute(() -> sleep(3_000));
        LeaseLost loss = lease.lost().get(10, TimeUnit.SECONDS);
        assertThat(loss.reason()).isEqualTo(LeaseLost.Reason.EXPIRED);
        assertThat(loss.fencingToken()).isEqualTo(lease.fencingToken());
        HeldLease next = acquire(client, "paused", "other", Duration.ofSeconds(5));
        assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        lease.close(); // lost: no release is sent, so the new holder keeps its lease
        assertThat(client.blocking().status("paused")).isInstanceOf(Verdict.Locked.class);
        next.close();
    }

    @Test
    void aLeaseClosedAfterItsValidityPassedIsLostEvenBeforeItsTimerRan() throws Exception {
        HeldLease lease = acquire(client, "closed-late", "w", Duration.ofSeconds(2));
        // The timer thread stalls; the holder's own thread carries on and closes the lease late.
        CountDownLatch stalled = new CountDownLatch(1);
        client.scheduler().execute(() -> {
            stalled.countDown();
            sleep(4_000);
        });
        stalled.await();
        Thread.sleep(2_500);
        lease.close();
        assertThat(lease.lost()).isCompletedWithValueMatching(loss -> loss.reason() == LeaseLost.Reason.EXPIRED);
    }

    @Test
    void aRenewalAnsweredNotFoundFiresLost() throws Exception {
        HeldLease lease = acquire(client, "released-elsewhere", "w", Duration.ofSeconds(3));
        // The owner name is only a claim: another process using it can release the lease.
        assertThat(client.blocking().release("released-elsewhere", "w", OptionalLong.empty()))
                .isEqualTo(new Verdict.Released());
        assertThat(lease.lost().get(10, TimeUnit.SECONDS).reason()).isEqualTo(LeaseLost.Reason.NOT_FOUND);
    }

    @Test
    void aCommandNobodyAnswersTimesOutWithATypedException() throws Exception {
        String unserved = env.topics().commands() + ".unserved";
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(unserved, 1, (short) 1))).all().get();
        }
        TopicNames topics = new TopicNames(unserved, env.topics().replies(), env.topics().deadLetters(),
                env.topics().events());
        try (LockClient lonely = LockClient.start(settings().withTopics(topics)
                .withRequestTimeout(Duration.ofMillis(800)))) {
            CompletableFuture<Verdict> reply = lonely.status("nobody-home");
            assertThatThrownBy(reply::join).isInstanceOf(CompletionException.class)
                    .hasCauseInstanceOf(LockTimeoutException.class);
            assertThatThrownBy(() -> lonely.blocking().status("nobody-home")).isInstanceOf(LockTimeoutException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> lonely.waiting() == 0);
        }
    }

    /**
     * A request ID is the caller's to choose, so a reply carrying it is not yet an answer: here no
     * worker reads the command topic, and the only reply is a forged one, with the request's ID,
     * granting the resource to another owner. It fails the request, naming both; and another
     * command sent with the ID meanwhile fails at once rather than share the first one's reply.
     */
    @Test
    void aReplyThatAnswersAnotherCommandIsNeverTakenAsTheCallersAnswer() throws Exception {
        String unserved = env.topics().commands() + ".forged";
        try (Admin admin = Admin.create(env.kafka().with(Map.of()))) {
            admin.createTopics(List.of(new NewTopic(unserved, 1, (short) 1))).all().get();
        }
        TopicNames topics = new TopicNames(unserved, env.topics().replies(), env.topics().deadLetters(),
                env.topics().events());
        try (LockClient lonely = LockClient.start(settings().withTopics(topics).withReplyPartition(0)
                .withRequestTimeout(Duration.ofSeconds(20)))) {
            String id = LockClient.newRequestId();
            CompletableFuture<ReplyMessage> mine = lonely.send(new Command.Acquire(id, "forged", "alice",
                    Duration.ofSeconds(30)));
            CompletableFuture<ReplyMessage> reused = lonely.send(new Command.Acquire(id, "forged", "bob",
                    Duration.ofSeconds(30)));
            assertThatThrownBy(reused::join).hasCauseInstanceOf(RequestIdInUseException.class);
            String forged = "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"forged\","
                    + "\"outcome\":\"acquired\",\"acquired\":true,\"lock\":{\"resource\":\"forged\",\"owner\":\"bob\","
                    + "\"fencing_token\":9,\"acquired_at\":\"2026-12-05T10:00:00.000Z\","
                    + "\"expires_at\":\"2026-12-05T10:00:30.000Z\"}}";
            env.send(env.topics().replies(), 0, id.getBytes(StandardCharsets.UTF_8),
                    forged.getBytes(StandardCharsets.UTF_8), null);
            assertThatThrownBy(() -> mine.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(ReplyMismatchException.class)
                    .cause().hasMessageContaining("lease owner bob").hasMessageContaining("acquire of forged by alice");
        }
    }

    @Test
    void aThousandConcurrentRequestsAreAllAnsweredAndCorrelated() {
        List<CompletableFuture<Verdict>> replies = IntStream.range(0, 1000)
                .mapToObj(i -> client.acquire("many-" + i, "owner-" + i, Duration.ofSeconds(30)))
                .toList();
        for (int i = 0; i < replies.size(); i++) {
            Verdict reply = replies.get(i).join();
            assertThat(reply).isInstanceOf(Verdict.Acquired.class);
            Lease lease = ((Verdict.Acquired) reply).lease();
            assertThat(lease.resource()).isEqualTo("many-" + i);
            assertThat(lease.owner()).isEqualTo("owner-" + i);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> client.waiting() == 0);
    }

    @Test
    void twoClientsReadOnlyTheirOwnReplies() throws Exception {
        try (LockClient a = LockClient.start(settings().withReplyPartition(1));
                LockClient b = LockClient.start(settings().withReplyPartition(2))) {
            List<String> idsA = sendStatuses(a, "a");
            List<String> idsB = sendStatuses(b, "b");
            await().atMost(Duration.ofSeconds(10)).until(() -> env.replies().matching(r -> idsA.contains(key(r))).size()
                    == idsA.size() && env.replies().matching(r -> idsB.contains(key(r))).size() == idsB.size());
            assertThat(env.replies().matching(r -> idsA.contains(key(r)))).allMatch(r -> r.partition() == 1);
            assertThat(env.replies().matching(r -> idsB.contains(key(r)))).allMatch(r -> r.partition() == 2);
        }
    }

    private static List<String> sendStatuses(LockClient c, String prefix) {
        List<String> ids = IntStream.range(0, 20).mapToObj(i -> LockClient.newRequestId()).toList();
        List<CompletableFuture<ReplyMessage>> futures = ids.stream()
                .map(id -> c.send(new Command.Status(id, prefix + "-" + id)))
                .toList();
        futures.forEach(f -> assertThat(f.join().reply()).isEqualTo(new Verdict.NotFound()));
        return ids;
    }

    private static String key(ConsumerRecord<byte[], byte[]> record) {
        return record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
    }

    @Test
    void duplicateAndForeignRepliesAreIgnored() {
        try (LockClient c = LockClient.start(settings().withReplyPartition(0))) {
            String id = LockClient.newRequestId();
            var first = c.send(new Command.Status(id, "dup")).join();
            // Garbage, a reply for nobody, and a duplicate of an answered reply, on this client's partition.
            for (String junk : List.of("not json", "{\"request_id\":\"nobody\",\"outcome\":\"released\"}", first.json())) {
                env.send(env.topics().replies(), 0, null, junk.getBytes(StandardCharsets.UTF_8), null);
            }
            assertThat(c.blocking().status("dup")).isEqualTo(new Verdict.NotFound());
            await().atMost(Duration.ofSeconds(5)).until(() -> c.waiting() == 0);
        }
    }

    @Test
    void tryAcquireWaitsForTheHolderAndHonoursItsRelease() throws Exception {
        HeldLease holder = acquire(client, "queue", "first", Duration.ofSeconds(30));
        CompletableFuture<Optional<HeldLease>> waiting =
                client.tryAcquire("queue", "second", Duration.ofSeconds(30), Duration.ofSeconds(20));
        Thread.sleep(700);
        assertThat(waiting).isNotDone();
        holder.close();
        try (HeldLease second = waiting.get(10, TimeUnit.SECONDS).orElseThrow()) {
            assertThat(second.fencingToken()).isGreaterThan(holder.fencingToken());
        }
        HeldLease blocker = acquire(client, "queue", "third", Duration.ofSeconds(30));
        assertThat(client.blocking().tryAcquire("queue", "fourth", Duration.ofSeconds(5), Duration.ofMillis(500)))
                .isEmpty();
        blocker.close();
    }

    @Test
    void waitersAreGrantedInTurnEachWithOneCommandAndNoPolling() throws Exception {
        try (TopicCollector commands = env.collect(env.topics().commands())) {
            HeldLease holder = acquire(client, "fifo", "holder", Duration.ofSeconds(30));
            CompletableFuture<Verdict> first = client.acquire("fifo", "first", Duration.ofSeconds(30),
                    Duration.ofSeconds(20));
            commands.await(r -> text(r).contains("\"owner\":\"first\""), 1);
            CompletableFuture<Verdict> second = client.acquire("fifo", "second", Duration.ofSeconds(30),
                    Duration.ofSeconds(20));
            commands.await(r -> text(r).contains("\"owner\":\"second\""), 1);
            assertThat(client.blocking().status("fifo", "second")).isInstanceOfSatisfying(Verdict.Locked.class,
                    locked -> {
                        assertThat(locked.waiters()).isEqualTo(2);
                        assertThat(locked.position()).as("behind first").hasValue(2);
                    });
            Thread.sleep(1_500);
            assertThat(first).as("it waits in the queue").isNotDone();

            holder.close();
            Verdict.Acquired granted = (Verdict.Acquired) first.get(10, TimeUnit.SECONDS);
            assertThat(granted.lease().fencingToken()).isGreaterThan(holder.fencingToken());
            assertThat(second).as("second in line").isNotDone();
            client.blocking().release("fifo", "first", OptionalLong.of(granted.lease().fencingToken()));
            Verdict.Acquired next = (Verdict.Acquired) second.get(10, TimeUnit.SECONDS);
            assertThat(next.lease().fencingToken()).isGreaterThan(granted.lease().fencingToken());

            assertThat(commands.matching(r -> text(r).contains("\"type\":\"acquire\"")
                    && text(r).contains("\"resource\":\"fifo\"") && !text(r).contains("\"owner\":\"holder\"")))
                    .as("one acquire per waiter, though each waited seconds").hasSize(2);
            client.blocking().release("fifo", "second", OptionalLong.empty());
        }
    }

    @Test
    void aWaitThatEndsIsAnsweredWaitExpired() {
        HeldLease holder = acquire(client, "patience", "holder", Duration.ofSeconds(30));
        Verdict verdict = client.blocking().acquire("patience", "waiter", Duration.ofSeconds(5), Duration.ofMillis(800));
        assertThat(verdict).isInstanceOfSatisfying(Verdict.NotAcquired.class,
                no -> assertThat(no.reason()).contains(WaitEnd.WAIT_EXPIRED));
        holder.close();
    }

    private static String text(ConsumerRecord<byte[], byte[]> record) {
        return record.value() == null ? "" : new String(record.value(), StandardCharsets.UTF_8);
    }

    @Test
    void anInvalidCommandFailsTryAcquireWithTheProblem() {
        assertThatThrownBy(() -> client.blocking().tryAcquire("bad", "w", Duration.ofSeconds(0), Duration.ofSeconds(5)))
                .isInstanceOf(InvalidCommandException.class)
                .satisfies(e -> assertThat(((InvalidCommandException) e).problem().errors().get(0).field())
                        .isEqualTo("ttl_seconds"));
    }

    @Test
    void withLockRunsTheActionAndReleases() throws Exception {
        Optional<Long> token = client.withLock("with", "w", Duration.ofSeconds(5), Duration.ZERO,
                lease -> lease.fencingToken());
        assertThat(token).isPresent();
        assertThat(client.blocking().status("with")).isEqualTo(new Verdict.NotFound());
    }

    @Test
    void withLockInterruptsAnActionWhoseLeaseIsLost() {
        assertThatThrownBy(() -> client.withLock("with-lost", "w", Duration.ofSeconds(3), Duration.ZERO, lease -> {
            client.blocking().release("with-lost", "w", OptionalLong.empty()); // someone else ends it
            Thread.sleep(30_000); // interrupted when the next renewal is answered not_found
            return "finished";
        })).isInstanceOf(LeaseLostException.class)
                .satisfies(e -> assertThat(((LeaseLostException) e).loss().reason()).isEqualTo(LeaseLost.Reason.NOT_FOUND));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
