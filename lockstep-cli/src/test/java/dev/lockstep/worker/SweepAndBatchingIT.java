package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.CheckpointPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.store.SweepResult;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Batched arbitration against the real store: same outcomes as one command at a time; sweeping in log time changes no reply. */
class SweepAndBatchingIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");
    private static LockStore store;

    @BeforeAll
    static void open() {
        store = PostgresLockStore.open(env.database());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    /** A random but reproducible history: contended resources, short TTLs, every command type. */
    private static List<String[]> history(long seed, int size) {
        Random random = new Random(seed);
        List<String[]> commands = new ArrayList<>();
        long millis = 0;
        for (int i = 0; i < size; i++) {
            millis += random.nextInt(400);
            String resource = "r" + random.nextInt(8);
            String owner = "o" + random.nextInt(4);
            String body = switch (random.nextInt(4)) {
                case 0 -> "\"type\":\"acquire\",\"owner\":\"" + owner + "\",\"ttl_seconds\":" + (1 + random.nextInt(3));
                case 1 -> "\"type\":\"renew\",\"owner\":\"" + owner + "\",\"ttl_seconds\":" + (1 + random.nextInt(3));
                case 2 -> "\"type\":\"release\",\"owner\":\"" + owner + "\"";
                default -> "\"type\":\"status\"";
            };
            commands.add(new String[] {resource, body, Long.toString(millis), "q" + i});
        }
        return commands;
    }

    /**
     * As {@link #history}, with acquires that wait in the queue, cancellations of them, and retries
     * of earlier commands with their request IDs (as a client that timed out sends them again).
     */
    private static List<String[]> historyWithWaiters(long seed, int size) {
        Random random = new Random(seed);
        List<String[]> commands = new ArrayList<>();
        List<String[]> waiting = new ArrayList<>();
        long millis = 0;
        for (int i = 0; i < size; i++) {
            millis += random.nextInt(400);
            int dice = random.nextInt(10);
            if (dice == 0 && !commands.isEmpty()) {
                String[] earlier = commands.get(random.nextInt(commands.size()));
                commands.add(new String[] {earlier[0], earlier[1], Long.toString(millis), earlier[3]});
                continue;
            }
            String resource = "r" + random.nextInt(4);
            String owner = "o" + random.nextInt(4);
            if (dice == 4 && !waiting.isEmpty()) {
                // A caller that gave up on an acquire that waits (or was granted meanwhile).
                String[] gaveUp = waiting.get(waiting.size() - 1 - random.nextInt(Math.min(3, waiting.size())));
                commands.add(new String[] {gaveUp[0], "\"type\":\"release\",\"owner\":\"" + gaveUp[1]
                        + "\",\"cancels\":\"" + gaveUp[2] + "\"", Long.toString(millis), "q" + i});
                continue;
            }
            if (dice >= 1 && dice <= 3) {
                waiting.add(new String[] {resource, owner, "q" + i});
            }
            String body = switch (dice) {
                case 1, 2, 3 -> "\"type\":\"acquire\",\"owner\":\"" + owner + "\",\"ttl_seconds\":"
                        + (1 + random.nextInt(3)) + ",\"wait_ms\":" + (100 + random.nextInt(3_000));
                case 5 -> "\"type\":\"acquire\",\"owner\":\"" + owner + "\",\"ttl_seconds\":" + (1 + random.nextInt(3));
                case 6, 7 -> "\"type\":\"release\",\"owner\":\"" + owner + "\"";
                case 8 -> "\"type\":\"renew\",\"owner\":\"" + owner + "\",\"ttl_seconds\":" + (1 + random.nextInt(3));
                default -> "\"type\":\"status\"";
            };
            commands.add(new String[] {resource, body, Long.toString(millis), "q" + i});
        }
        return commands;
    }

    private static List<String> run(String prefix, List<String[]> history, boolean oneBatch) {
        BatchProcessor processor = Batches.processor(store);
        List<Inbound> records = new ArrayList<>();
        for (int i = 0; i < history.size(); i++) {
            String[] c = history.get(i);
            String resource = prefix + c[0];
            // A cancellation names its acquire's request ID, which carries the run's prefix too.
            String body = c[1].replace("\"cancels\":\"", "\"cancels\":\"" + prefix);
            String json = "{\"request_id\":\"" + prefix + c[3] + "\",\"resource\":\"" + resource + "\"," + body + "}";
            records.add(Batches.record(prefix, i, resource, json, T0.plusMillis(Long.parseLong(c[2]))));
        }
        PartitionId partition = new PartitionId(prefix, 0);
        Batches.start(store, partition);
        List<Outbound> out = new ArrayList<>();
        if (oneBatch) {
            out.addAll(processor.process(partition, records));
        } else {
            records.forEach(r -> out.addAll(processor.process(partition, List.of(r))));
        }
        return out.stream().map(SweepAndBatchingIT::value).map(v -> v.replace(prefix, "")).toList();
    }

    private static String value(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            return new String(reply.value(), StandardCharsets.UTF_8);
        } else if (out instanceof Outbound.Event event) {
            return event.entry().value();
        } else if (out instanceof Outbound.HandOver handOver) {
            return "hand-over of " + handOver.resource() + " " + handOver.index() + "/" + handOver.count();
        }
        return "dead letter: " + ((Outbound.DeadLetter) out).reason();
    }

    @Test
    void batchingChangesNoOutcome() {
        List<String[]> history = history(42, 600);
        List<String> oneByOne = run("single-", history, false);
        List<String> batched = run("batched-", history, true);
        assertThat(batched).as("replies and events").hasSizeGreaterThan(600).containsExactlyElementsOf(oneByOne);
        assertThat(batched).filteredOn(r -> r.contains("\"outcome\"")).hasSize(600);
        assertThat(batched).as("expiries shown by later records, loaded from the database for a batch")
                .anyMatch(r -> r.contains("\"event\":\"expired\""))
                .anyMatch(r -> r.contains("\"event\":\"taken_over\""))
                .anyMatch(r -> r.contains("\"event\":\"released\""));
        assertThat(batched).anyMatch(r -> r.contains("\"outcome\":\"not_acquired\""))
                .anyMatch(r -> r.contains("\"outcome\":\"released\""))
                .anyMatch(r -> r.contains("\"outcome\":\"forbidden\""))
                .anyMatch(r -> r.contains("\"outcome\":\"renewed\""));
    }

    /**
     * With waiters, what the worker reads of the queues batch by batch (the queues a batch may
     * decide, and their leases) decides as the whole partition in one batch does; the records'
     * retries and cancellations included.
     */
    @Test
    void batchingChangesNoOutcomeWithWaiters() {
        List<String[]> history = historyWithWaiters(7, 800);
        List<String> oneByOne = run("qsingle-", history, false);
        List<String> batched = run("qbatched-", history, true);
        assertThat(batched).containsExactlyElementsOf(oneByOne);
        assertThat(batched).as("waiters granted, waits ended, waiters cancelled")
                .anyMatch(r -> r.contains("\"waited_ms\""))
                .anyMatch(r -> r.contains("\"reason\":\"wait_expired\""))
                .anyMatch(r -> r.contains("\"event\":\"cancelled\""));
    }

    private static String acquire(String id, String resource, String owner) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource
                + "\",\"owner\":\"" + owner + "\",\"ttl_seconds\":1}";
    }

    private static String reply(List<Outbound> out) {
        Outbound answer = out.get(out.size() - 1);
        return new String(((Outbound.ReplyRecord) answer).value(), StandardCharsets.UTF_8);
    }

    private static Map<String, Lease> leases(PartitionId partition, String resource) {
        return Batches.leases(store, partition, List.of(resource), Instant.EPOCH, Instant.EPOCH);
    }

    private static Sweeper aggressiveSweeper() {
        return new Sweeper(store, new Retention(Duration.ofMinutes(5), Duration.ofSeconds(1), 1));
    }

    @Test
    void publishedEventsAreSweptOnceAcknowledgedAndRecordsFetchedAgainPublishTheRest() {
        PartitionId partition = new PartitionId("events", 0);
        Batches.start(store, partition);
        long[] acknowledged = {0};
        BatchProcessor processor = new BatchProcessor(store, new PartitionMachine(Batches.SETTINGS), Optional::empty,
                p -> acknowledged[0], CheckpointPolicy.OFF,
                new WorkerMetrics(new SimpleMeterRegistry(), Clock.systemUTC()));
        List<Inbound> records = List.of(
                Batches.record("events", 0, "e", acquire("ev-1", "e", "a"), T0),
                Batches.record("events", 1, "e", acquire("ev-2", "e", "b"), T0.plusSeconds(5)),
                Batches.record("events", 2, "f", acquire("ev-3", "f", "a"), T0.plusSeconds(6)));
        List<String> first = processor.process(partition, records).stream().map(SweepAndBatchingIT::value).toList();
        assertThat(first).filteredOn(v -> v.contains("\"event\"")).hasSize(5);

        acknowledged[0] = 1;
        processor.process(partition, List.of(Batches.record("events", 3, "g",
                "{\"request_id\":\"ev-4\",\"type\":\"status\",\"resource\":\"g\"}", T0.plusSeconds(7))));
        assertThat(aggressiveSweeper().sweepNow().events()).as("offset 0's event, below the acknowledged offset")
                .isEqualTo(1);
        List<String> again = processor.process(partition, records.subList(1, 3)).stream()
                .map(SweepAndBatchingIT::value).toList();
        assertThat(again).as("fetched again: the same events and replies, byte for byte")
                .containsExactlyElementsOf(first.subList(2, first.size()));
    }

    @Test
    void theSweeperRemovesOnlyWhatNoLaterRecordCanObserveInLogTime() {
        BatchProcessor processor = Batches.processor(store);
        PartitionId partition = new PartitionId("sweep", 0);
        Batches.start(store, partition);
        // Log time two minutes behind the wall clock: a lagging worker. The wall clock must not matter.
        Instant t = Instant.now().minusSeconds(120);
        processor.process(partition, List.of(
                Batches.record("sweep", 0, "swept", acquire("sw-1", "swept", "a"), t),
                Batches.record("sweep", 1, "swept", "{\"request_id\":\"sw-2\",\"type\":\"release\","
                        + "\"resource\":\"swept\",\"owner\":\"a\"}", t.plusMillis(10)),
                Batches.record("sweep", 2, "swept", acquire("sw-3", "swept", "b"), t.plusMillis(20))));
        Lease held = Batches.leases(store, partition, List.of("swept"), Instant.EPOCH, Instant.EPOCH)
                .get("swept");
        assertThat(held.fencingToken()).as("granted at offset 2").isEqualTo(3);

        SweepResult early = aggressiveSweeper().sweepNow();
        assertThat(leases(partition, "swept"))
                .as("live in log time, though long expired by the wall clock").containsKey("swept");
        Map<String, RequestEntry> kept = store.inPartition(partition, tx -> tx.open(List.of("sw-1", "sw-2", "sw-3"), Optional.empty()).requests());
        assertThat(kept).hasSize(3);
        assertThat(early.removedAny()).isFalse();

        // A record a day later moves the partition's clock past the request retention, and past the
        // lease's end plus that retention (within it, a grant to another owner is a takeover).
        Instant dayLater = t.plus(Duration.ofDays(1)).plusSeconds(2);
        processor.process(partition, List.of(Batches.record("sweep", 3, "other",
                "{\"request_id\":\"sw-4\",\"type\":\"status\",\"resource\":\"other\"}", dayLater)));
        SweepResult swept = aggressiveSweeper().sweepNow();
        assertThat(swept.leases()).isEqualTo(1);
        assertThat(swept.replies()).isEqualTo(3);
        assertThat(leases(partition, "swept")).isEmpty();

        String again = reply(processor.process(partition, List.of(
                Batches.record("sweep", 4, "swept", acquire("sw-5", "swept", "c"), dayLater.plusMillis(1)))));
        assertThat(again).as("the token of offset 4, above the swept lease's").contains("\"fencing_token\":5");
    }

    @Test
    void aRetryJustInsideTheRequestRetentionGetsItsReplyAndJustOutsideIsAppliedWhateverTheSweeperDid() {
        Duration retention = Duration.ofMinutes(5);
        EngineSettings settings = new EngineSettings(Batches.SETTINGS.limits(), retention,
                Batches.SETTINGS.replyAllowList(), Batches.SETTINGS.defaultReplyTopic(), 1);
        List<List<String>> runs = new ArrayList<>();
        for (boolean sweepBetween : List.of(false, true)) {
            String topic = "retention-" + sweepBetween;
            PartitionId partition = new PartitionId(topic, 0);
            store.inPartition(partition, tx -> {
                tx.begin(new StoredPartition(Optional.of("id"), PartitionPosition.START, Optional.of(settings)),
                        EpochOrigin.FIRST_START, "test");
                return null;
            });
            BatchProcessor processor = Batches.processor(store, settings);
            Instant t = T0;
            Instant[] times = {t, t.plus(retention).minusMillis(1), t.plus(retention)};
            List<String> replies = new ArrayList<>();
            String resource = "kept-" + sweepBetween;
            for (int i = 0; i < times.length; i++) {
                // The same request each time: a retry (the lease itself ends after one second).
                replies.add(reply(processor.process(partition, List.of(
                        Batches.record(topic, i, resource, acquire("retry-1", resource, "a"), times[i])))
                        ).replace(resource, "kept"));
                if (sweepBetween) {
                    new Sweeper(store, new Retention(retention, Duration.ofSeconds(1), 1)).sweepNow();
                }
            }
            runs.add(replies);
        }
        List<String> replies = runs.get(0);
        assertThat(replies.get(1)).as("1 ms inside the retention: the stored reply").isEqualTo(replies.get(0));
        assertThat(replies.get(2)).as("at the retention's end: applied again, a new lease")
                .contains("\"outcome\":\"acquired\"").contains("\"fencing_token\":3").isNotEqualTo(replies.get(0));
        assertThat(runs.get(1)).as("sweeping between the retries changes no reply").isEqualTo(replies);
    }
}
