package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.Quarantine;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.store.DueHandOver;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.store.StoreException;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The exactly-once guards of the store, raced by real transactions on the real database. */
class BatchProcessorIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockStore store;

    @BeforeAll
    static void open() {
        store = PostgresLockStore.open(env.database());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    private static String acquire(String id, String resource, String owner) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"ttl_seconds\":60}";
    }

    @Test
    void twoWorkersApplyingTheSameBatchApplyItOnce() throws Exception {
        List<Inbound> batch = IntStream.range(0, 50)
                .mapToObj(i -> Batches.record("zombie", i, "z-" + (i % 5),
                        acquire("zombie-" + i, "z-" + (i % 5), "o-" + i), Instant.now()))
                .toList();
        PartitionId partition = new PartitionId("zombie", 0);
        Batches.start(store, partition);
        CountDownLatch go = new CountDownLatch(1);
        CompletableFuture<List<Outbound>> a = CompletableFuture.supplyAsync(() -> await(go, () -> Batches.processor(store).process(partition, batch)));
        CompletableFuture<List<Outbound>> b = CompletableFuture.supplyAsync(() -> await(go, () -> Batches.processor(store).process(partition, batch)));
        go.countDown();
        List<Outbound> first = a.get(30, TimeUnit.SECONDS);
        List<Outbound> second = b.get(30, TimeUnit.SECONDS);
        assertThat(values(first)).containsExactlyElementsOf(values(second));
        Map<String, Lease> leases = Batches.leases(store, partition,
                List.of("z-0", "z-1", "z-2", "z-3", "z-4"), Instant.EPOCH, Instant.EPOCH);
        // Each resource was first acquired at offset 0..4: its token is that offset + 1.
        assertThat(leases.values()).extracting(Lease::fencingToken).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        assertThat(nextOffset(partition)).isEqualTo(50);
    }

    /**
     * The queue kept across batches in the database: a waiter queued in one batch is granted by a
     * release in the next (its reply published with the release's), its wait's end and a
     * cancellation are decided by later batches, and a batch fetched again publishes the very same
     * replies and events again.
     */
    @Test
    void waitersLiveInTheDatabaseBetweenBatchesAndABatchFetchedAgainRepeatsTheirReplies() {
        PartitionId partition = new PartitionId("queue", 0);
        Batches.start(store, partition);
        Instant t0 = Instant.now();
        String waits = "\"wait_ms\":60000}";
        List<Inbound> first = List.of(
                Batches.record("queue", 0, "q", acquire("holder", "q", "h"), t0),
                Batches.record("queue", 1, "q", acquire("w1", "q", "a").replace("}", "," + waits), t0.plusMillis(1)),
                Batches.record("queue", 2, "q", acquire("w2", "q", "b").replace("}", "," + waits), t0.plusMillis(2)),
                Batches.record("queue", 3, "q", acquire("w3", "q", "c").replace("}", "," + waits), t0.plusMillis(3)));
        assertThat(values(Batches.processor(store).process(partition, first))).as("the holder's reply alone")
                .singleElement().asString().contains("\"acquired\"");

        List<Inbound> second = List.of(
                Batches.record("queue", 4, "q", "{\"request_id\":\"r\",\"type\":\"release\",\"resource\":\"q\","
                        + "\"owner\":\"h\"}", t0.plusMillis(10)),
                Batches.record("queue", 5, "q", "{\"request_id\":\"x\",\"type\":\"release\",\"resource\":\"q\","
                        + "\"owner\":\"b\",\"cancels\":\"w2\"}", t0.plusMillis(11)));
        List<Outbound> decided = Batches.processor(store).process(partition, second);
        // Each record's waiters' replies, then its own.
        assertThat(replies(decided)).containsExactly("w1", "r", "w2", "x");
        assertThat(values(decided).get(0)).contains("\"owner\":\"a\"").contains("\"fencing_token\":5");
        assertThat(values(decided).get(2)).contains("\"reason\":\"cancelled\"");

        // Fetched again (an acknowledgement failed): the same bytes, the waiters' replies included.
        List<Outbound> again = Batches.processor(store).process(partition, second, 4);
        assertThat(values(again)).containsExactlyElementsOf(values(decided));
        assertThat(events(again)).containsExactlyElementsOf(events(decided));
        assertThat(again.stream().filter(o -> o instanceof Outbound.ReplyRecord r && r.deferred())
                .map(o -> ((Outbound.ReplyRecord) o).requestOffset())).as("the acquires they answer, read back")
                .containsExactly(1L, 2L);

        List<Inbound> third = List.of(Batches.record("queue", 6, "q",
                "{\"request_id\":\"s\",\"type\":\"status\",\"resource\":\"q\"}", t0.plusSeconds(61)));
        List<Outbound> later = Batches.processor(store).process(partition, third);
        assertThat(replies(later)).as("the last waiter's wait ended").containsExactly("w3", "s");
        assertThat(values(later).get(0)).contains("\"reason\":\"wait_expired\"");
        assertThat(store.waiters("queue")).isEmpty();
    }

    private static List<String> replies(List<Outbound> outbound) {
        return outbound.stream().filter(Outbound.ReplyRecord.class::isInstance)
                .map(o -> ((Outbound.ReplyRecord) o).requestId()).toList();
    }

    private static List<String> events(List<Outbound> outbound) {
        return outbound.stream().filter(Outbound.Event.class::isInstance)
                .map(o -> ((Outbound.Event) o).entry().value()).toList();
    }

    /**
     * Two permits freed by one record: it grants the first waiter, and the next waits, marked due
     * in the database (where the ticker finds it if the hand-over is lost), until the hand-over
     * record grants it with a token of its own; a full semaphore leaves nobody due.
     */
    @Test
    void theNextWaiterOfPermitsFreedTogetherIsDueUntilAHandOverGrantsIt() {
        PartitionId partition = new PartitionId("handover", 0);
        Batches.start(store, partition);
        Instant t0 = Instant.now();
        String semaphore = ",\"limit\":2";
        String waits = semaphore + ",\"wait_ms\":120000}";
        List<Inbound> first = List.of(
                Batches.record("handover", 0, "sem", acquire("a", "sem", "a").replace("}", semaphore + "}"), t0),
                Batches.record("handover", 1, "sem", acquire("b", "sem", "b").replace("}", semaphore + "}"), t0),
                Batches.record("handover", 2, "sem", acquire("c", "sem", "c").replace("}", waits), t0),
                Batches.record("handover", 3, "sem", acquire("d", "sem", "d").replace("}", waits), t0),
                Batches.record("handover", 4, "sem", acquire("e", "sem", "e").replace("}", waits), t0));
        Batches.processor(store).process(partition, first);

        List<Outbound> bothEnded = Batches.processor(store).process(partition, List.of(Batches.record("handover", 5,
                "sem", "{\"request_id\":\"s\",\"type\":\"status\",\"resource\":\"sem\"}", t0.plusSeconds(61))));
        assertThat(replies(bothEnded)).as("c granted at the record that showed both leases end").containsExactly("c", "s");
        assertThat(values(bothEnded).get(0)).contains("\"fencing_token\":6");
        assertThat(bothEnded).filteredOn(Outbound.HandOver.class::isInstance).singleElement()
                .isEqualTo(new Outbound.HandOver(bothEnded.get(0).source(), "sem", 1, 1));
        assertThat(store.handOversDue("handover", List.of(0))).containsExactly(new DueHandOver(0, "sem", 5));

        List<Outbound> handedOver = Batches.processor(store).process(partition,
                List.of(Batches.handOver("handover", 6, "sem", 5, t0.plusSeconds(62))));
        assertThat(replies(handedOver)).containsExactly("d");
        assertThat(values(handedOver).get(0)).as("its own record's token").contains("\"fencing_token\":7");
        assertThat(handedOver).noneMatch(Outbound.HandOver.class::isInstance);
        assertThat(store.handOversDue("handover", List.of(0))).as("c and d hold both permits: e is not due").isEmpty();
    }

    @Test
    void aPartitionIsQuarantinedFromItsLossUntilARecordPastTheLongestTtlIsApplied() {
        PartitionId partition = new PartitionId("lost", 0);
        store.inPartition(partition, tx -> {
            tx.begin(new StoredPartition(Optional.of("test-topic-id"), PartitionPosition.START.afterLoss(5),
                    Optional.of(Batches.SETTINGS)), EpochOrigin.RECORDS_LOST, "records 0..4 gone");
            return null;
        });
        assertThat(store.quarantines("lost")).containsExactly(Map.entry(0, new Quarantine(0, 5, Optional.empty())));

        Instant t0 = Instant.now().truncatedTo(ChronoUnit.MILLIS); // as a broker stamps it
        String status = "{\"request_id\":\"%s\",\"type\":\"status\",\"resource\":\"r\"}";
        Batches.processor(store).process(partition, List.of(Batches.record("lost", 5, "r", status.formatted("s1"), t0)));
        Instant end = t0.plus(Batches.SETTINGS.limits().maxTtl());
        assertThat(store.quarantines("lost")).as("its end fixed by the first record still there")
                .containsExactly(Map.entry(0, new Quarantine(0, 5, Optional.of(end))));

        Batches.processor(store).process(partition, List.of(Batches.record("lost", 6, "r", status.formatted("s2"),
                end.plusSeconds(1))));
        assertThat(store.quarantines("lost")).as("over at the partition's log time").isEmpty();
    }

    @Test
    void aResourceGrantedConcurrentlyFromTwoPartitionsCannotBeGrantedTwice() throws Exception {
        // A producer with a custom partitioner can put one resource on two partitions. The two
        // transactions then both see no lease; UNIQUE(resource) lets only one of them insert.
        Batches.start(store, new PartitionId("p", 0));
        Batches.start(store, new PartitionId("p", 1));
        CountDownLatch bothRead = new CountDownLatch(2);
        CompletableFuture<Void> first = CompletableFuture.runAsync(() -> grantAfterBothRead("p", 0, "owner-a", bothRead));
        CompletableFuture<Void> second = CompletableFuture.runAsync(() -> grantAfterBothRead("p", 1, "owner-b", bothRead));
        Throwable failure = null;
        for (CompletableFuture<Void> f : List.of(first, second)) {
            try {
                f.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                failure = e.getCause();
            }
        }
        assertThat(failure).isInstanceOf(StoreException.class).hasMessageContaining("concurrently");
        Map<String, Lease> leases = Batches.leases(store, new PartitionId("p", 0), List.of("race"), Instant.EPOCH, Instant.EPOCH);
        assertThat(leases.get("race").fencingToken()).isEqualTo(1);
    }

    private static void grantAfterBothRead(String topic, int partition, String owner, CountDownLatch bothRead) {
        store.inPartition(new PartitionId(topic, partition), tx -> {
            tx.partition();
            assertThat(tx.leasesForUpdate(List.of("race"), Instant.EPOCH, Instant.EPOCH)).isEmpty();
            bothRead.countDown();
            await(bothRead, () -> null);
            Instant now = Instant.now();
            tx.save(Batches.granted("race", owner, now), 0);
            return null;
        });
    }

    @Test
    void aRetriedBatchFailsWholeWhenTheDatabaseRefusesPartOfIt() {
        PartitionId partition = new PartitionId("atomic", 0);
        Batches.start(store, partition);
        assertThatThrownBy(() -> store.inPartition(partition, tx -> {
            tx.partition();
            Instant now = Instant.now();
            tx.save(Batches.granted("atomic-1", "o", now), 0);
            throw new IllegalStateException("crash after writing, before commit");
        })).hasMessageContaining("crash");
        assertThat(nextOffset(partition)).isZero();
        Map<String, Lease> leases = Batches.leases(store, partition, List.of("atomic-1"), Instant.EPOCH, Instant.EPOCH);
        assertThat(leases).isEmpty();
    }

    @Test
    void aBatchAppliedAgainAfterItFailedReadsItsLeasesWhereThePartitionStands() {
        // A batch reads its leases with its position, guessing the partition stands where this
        // processor left it. A batch that failed after the guess was updated leaves the guess
        // ahead of the database: the retry must notice, or it would not see the lease it contends for.
        PartitionId partition = new PartitionId("retried", 0);
        Batches.start(store, partition);
        AtomicBoolean crash = new AtomicBoolean();
        BatchProcessor processor = Batches.processor(store, Batches.SETTINGS, p -> {
            if (crash.getAndSet(false)) {
                throw new IllegalStateException("crash before the batch is saved");
            }
            return 0L;
        });
        Instant t0 = Instant.parse("2026-12-04T00:00:00Z");
        assertThat(outcomes(processor.process(partition,
                List.of(Batches.record("retried", 0, "r", acquire("rt-0", "r", "o1"), t0))))).containsExactly("acquired");
        List<Inbound> contending = List.of(Batches.record("retried", 1, "r", acquire("rt-1", "r", "o2"), t0.plusSeconds(1)),
                Batches.record("retried", 2, "s", acquire("rt-2", "s", "o2"), t0.plusSeconds(2)));
        crash.set(true);
        assertThatThrownBy(() -> processor.process(partition, contending)).hasMessageContaining("crash");

        assertThat(outcomes(processor.process(partition, contending))).containsExactly("not_acquired", "acquired");
        assertThat(nextOffset(partition)).isEqualTo(3);
        Map<String, Lease> leases = Batches.leases(store, partition, List.of("r", "s"), Instant.EPOCH,
                Instant.EPOCH);
        assertThat(leases.get("r").owner()).isEqualTo("o1");
        assertThat(leases.get("s").owner()).isEqualTo("o2");
    }

    private static List<String> outcomes(List<Outbound> outbound) {
        return outbound.stream().filter(Outbound.ReplyRecord.class::isInstance)
                .map(o -> ((Outbound.ReplyRecord) o).answer())
                .map(answer -> answer instanceof Outbound.Answer.Decided decided ? decided.outcome().wireName() : "repeated")
                .toList();
    }

    private static long nextOffset(PartitionId partition) {
        return store.inPartition(partition, tx -> tx.partition()).orElseThrow().position().nextOffset();
    }

    private static List<String> values(List<Outbound> outbound) {
        return outbound.stream().filter(Outbound.ReplyRecord.class::isInstance)
                .map(o -> new String(((Outbound.ReplyRecord) o).value(), StandardCharsets.UTF_8))
                .toList();
    }

    private static <T> T await(CountDownLatch latch, Supplier<T> then) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("timed out waiting for the other transaction");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return then.get();
    }
}
