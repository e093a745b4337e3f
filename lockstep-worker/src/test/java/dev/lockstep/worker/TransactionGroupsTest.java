package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.StoreException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The apply threads' rules: a batch starts at once when a thread is free; batches that arrive while
 * every thread is busy share the next transaction, in partition order; one partition's failure fails
 * it alone and the others are applied again together; the database's failure fails them all at once.
 */
class TransactionGroupsTest {

    private static final PartitionId A = new PartitionId("commands", 0);
    private static final PartitionId B = new PartitionId("commands", 1);
    private static final PartitionId C = new PartitionId("commands", 2);
    private static final PartitionId D = new PartitionId("commands", 3);

    /** The partitions of each transaction, in the order the processor was given them. */
    private final List<List<PartitionId>> transactions = new CopyOnWriteArrayList<>();
    private final CountDownLatch firstMayFinish = new CountDownLatch(1);
    private volatile Function<List<PartitionId>, RuntimeException> failure = partitions -> null;
    private final CompletableFuture<Void> acks = new CompletableFuture<>();

    /** Stands in for the database: records each transaction's partitions; the first waits for the latch. */
    private final RecordProcessor processor = new RecordProcessor() {
        @Override
        public List<Outbound> process(PartitionId partition, List<Inbound> records, long floor) {
            throw new UnsupportedOperationException("the groups apply through processTogether");
        }

        @Override
        public List<List<Outbound>> processTogether(List<Part> parts) {
            List<PartitionId> partitions = parts.stream().map(Part::partition).toList();
            transactions.add(partitions);
            if (transactions.size() == 1) {
                await(firstMayFinish);
            }
            RuntimeException failed = failure.apply(partitions);
            if (failed != null) {
                throw failed;
            }
            return parts.stream().map(part -> List.<Outbound>of()).toList();
        }
    };

    private TransactionGroups groups;

    private TransactionGroups groups(int threads) {
        groups = new TransactionGroups(processor, out -> acks, threads,
                new WorkerMetrics(new SimpleMeterRegistry(), Clock.systemUTC()));
        return groups;
    }

    @AfterEach
    void close() {
        firstMayFinish.countDown();
        groups.close();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static CompletableFuture<Void> applied(CompletableFuture<CompletableFuture<Void>> result)
            throws InterruptedException, ExecutionException, java.util.concurrent.TimeoutException {
        return result.get(10, TimeUnit.SECONDS);
    }

    private CompletableFuture<CompletableFuture<Void>> submit(PartitionId partition) {
        return groups.submit(partition, List.of(), 0, System.nanoTime());
    }

    @Test
    void aBatchStartsAloneWhileAThreadIsFreeAndCompletesWithItsAcknowledgements() throws Exception {
        groups(2);
        firstMayFinish.countDown();

        CompletableFuture<CompletableFuture<Void>> result = submit(A);

        CompletableFuture<Void> acknowledged = applied(result);
        assertThat(transactions).containsExactly(List.of(A));
        assertThat(acknowledged).isNotDone();
        acks.complete(null);
        assertThat(acknowledged).succeedsWithin(Duration.ofSeconds(10));
    }

    @Test
    void batchesArrivingWhileEveryThreadIsBusyShareTheNextTransactionInPartitionOrder() throws Exception {
        groups(1);
        CompletableFuture<CompletableFuture<Void>> first = submit(A);
        CompletableFuture<CompletableFuture<Void>> d = submit(D);
        CompletableFuture<CompletableFuture<Void>> b = submit(B);
        CompletableFuture<CompletableFuture<Void>> c = submit(C);
        assertThat(d).isNotDone();

        firstMayFinish.countDown();

        for (CompletableFuture<CompletableFuture<Void>> each : List.of(first, b, c, d)) {
            assertThat(applied(each)).isNotDone(); // applied, its acknowledgements to come
        }
        assertThat(transactions).containsExactly(List.of(A), List.of(B, C, D));
    }

    @Test
    void theWaitingBatchesAreSpreadOverTheThreadsThatAreFree() throws Exception {
        groups(2);
        CompletableFuture<CompletableFuture<Void>> first = submit(A);
        // A second thread is free: B starts at once, alone; C and D wait for the first thread.
        CompletableFuture<CompletableFuture<Void>> b = submit(B);
        applied(b);
        CompletableFuture<CompletableFuture<Void>> c = submit(C);
        CompletableFuture<CompletableFuture<Void>> d = submit(D);
        applied(c);
        applied(d);
        assertThat(first).isNotDone();

        firstMayFinish.countDown();

        applied(first);
        assertThat(transactions.get(0)).containsExactly(A);
        assertThat(transactions.get(1)).containsExactly(B);
        // C and D each found the second thread free (one after the other) or waited for it together.
        assertThat(transactions.subList(2, transactions.size()).stream().flatMap(List::stream))
                .containsExactlyInAnyOrder(C, D);
    }

    @Test
    void onePartitionsFailureFailsItAloneAndTheOthersAreAppliedTogetherWithoutIt() throws Exception {
        groups(1);
        DatabaseBehindException behind = new DatabaseBehindException(C, 5, 9);
        failure = partitions -> partitions.contains(C) ? new PartitionFailure(C, behind) : null;
        CompletableFuture<CompletableFuture<Void>> first = submit(A);
        CompletableFuture<CompletableFuture<Void>> b = submit(B);
        CompletableFuture<CompletableFuture<Void>> c = submit(C);
        CompletableFuture<CompletableFuture<Void>> d = submit(D);

        firstMayFinish.countDown();

        applied(first);
        assertThat(applied(b)).isNotDone();
        assertThat(applied(d)).isNotDone();
        assertThatThrownBy(() -> applied(c)).hasCause(behind);
        assertThat(transactions).containsExactly(List.of(A), List.of(B, C, D), List.of(B, D));
    }

    @Test
    void theDatabasesFailureFailsEveryBatchOfTheTransactionAtOnce() throws Exception {
        groups(1);
        StoreException down = new StoreException("batch failed",
                new SQLException("terminating connection due to administrator command", "57P01"));
        failure = partitions -> partitions.contains(C) ? new PartitionFailure(C, down) : null;
        CompletableFuture<CompletableFuture<Void>> first = submit(A);
        List<CompletableFuture<CompletableFuture<Void>>> waiting = List.of(submit(B), submit(C), submit(D));

        firstMayFinish.countDown();

        applied(first);
        for (CompletableFuture<CompletableFuture<Void>> each : waiting) {
            assertThatThrownBy(() -> applied(each)).hasCause(down);
        }
        assertThat(transactions).containsExactly(List.of(A), List.of(B, C, D));
    }

    @Test
    void aFailureNoPartitionCausedFailsEveryBatchOfTheTransaction() throws Exception {
        groups(1);
        StoreException commitFailed = new StoreException("batch failed: could not serialize access", null);
        failure = partitions -> partitions.size() > 1 ? commitFailed : null;
        CompletableFuture<CompletableFuture<Void>> first = submit(A);
        List<CompletableFuture<CompletableFuture<Void>>> waiting = List.of(submit(B), submit(C));

        firstMayFinish.countDown();

        applied(first);
        for (CompletableFuture<CompletableFuture<Void>> each : waiting) {
            assertThatThrownBy(() -> applied(each)).hasCause(commitFailed);
        }
        assertThat(transactions).containsExactly(List.of(A), List.of(B, C));
    }

    @Test
    void anUnexpectedErrorStillAnswersEveryBatch() throws Exception {
        groups(1);
        AssertionError broken = new AssertionError("a bug");
        failure = partitions -> {
            if (partitions.size() > 1) {
                throw broken;
            }
            return null;
        };
        CompletableFuture<CompletableFuture<Void>> first = submit(A);
        List<CompletableFuture<CompletableFuture<Void>>> waiting = List.of(submit(B), submit(C));

        firstMayFinish.countDown();

        applied(first);
        for (CompletableFuture<CompletableFuture<Void>> each : waiting) {
            assertThatThrownBy(() -> applied(each)).hasCause(broken);
        }
        // The thread is free again: the next batch is applied.
        assertThat(applied(submit(D))).isNotDone();
    }
}
