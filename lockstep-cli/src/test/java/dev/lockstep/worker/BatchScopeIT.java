package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.Limits;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A batch reads from the database only what its records may decide, and that must be enough:
 * each record applied in a batch of its own publishes what the whole log decides in one run, as a
 * replay does. The cases are those where a batch decides about a resource its records do not
 * name: a lease that ends, a wait that ends, a quarantine that ends.
 */
class BatchScopeIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Instant T0 = Instant.now().truncatedTo(ChronoUnit.MILLIS);

    private static LockStore store;

    @BeforeAll
    static void open() {
        store = PostgresLockStore.open(env.database());
    }

    @AfterAll
    static void close() {
        store.close();
    }

    private static String acquire(String id, String resource, String owner, int ttl, String fields) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"" + resource + "\",\"owner\":\""
                + owner + "\",\"ttl_seconds\":" + ttl + fields + "}";
    }

    private static String status(String id, String resource) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"status\",\"resource\":\"" + resource + "\"}";
    }

    /** A semaphore's holder with a value ends while another holds: no vacancy, though the batch names neither. */
    @Test
    void aLeaseEndingWhileAnotherHolderHoldsLeavesNoVacancy() {
        List<Inbound> log = List.of(
                Batches.record("vacancy", 0, "sem", acquire("a", "sem", "A", 3, ",\"limit\":2,\"value\":\"a\""), T0),
                Batches.record("vacancy", 1, "sem", acquire("b", "sem", "B", 30, ",\"limit\":2,\"value\":\"b\""),
                        T0.plusMillis(1)),
                Batches.record("vacancy", 2, "other", status("s", "other"), T0.plusSeconds(4)));

        List<String> worker = oneBatchPerRecord(new PartitionId("vacancy", 0), Batches.SETTINGS, log);

        assertThat(worker).as("as the whole log decides").containsExactlyElementsOf(replay(Batches.SETTINGS, log));
        assertThat(worker).anyMatch(out -> out.contains("\"event\":\"expired\"") && out.contains("\"owner\":\"A\""))
                .noneMatch(out -> out.contains("\"event\":\"vacant\""));
    }

    /** The first waiter's wait ends in a batch that names no resource: the one behind it is granted there. */
    @Test
    void theNextWaiterIsGrantedInTheBatchWhereTheFirstWaitEnds() {
        List<Inbound> log = List.of(
                Batches.record("room", 0, "rw", acquire("r1", "rw", "R1", 60, ",\"limit\":2"), T0),
                Batches.record("room", 1, "rw", acquire("w", "rw", "W", 60, ",\"wait_ms\":2000"), T0.plusSeconds(1)),
                Batches.record("room", 2, "rw", acquire("r2", "rw", "R2", 60, ",\"limit\":2,\"wait_ms\":60000"),
                        T0.plusSeconds(2)),
                Batches.record("room", 3, "elsewhere", status("s", "elsewhere"), T0.plusSeconds(4)));

        List<String> worker = oneBatchPerRecord(new PartitionId("room", 0), Batches.SETTINGS, log);

        assertThat(worker).as("as the whole log decides").containsExactlyElementsOf(replay(Batches.SETTINGS, log));
        assertThat(worker).anyMatch(out -> isReplyTo("w", out) && out.contains("wait_expired"))
                .anyMatch(out -> isReplyTo("r2", out) && out.contains("\"outcome\":\"acquired\""));
    }

    /**
     * No waiter is granted while the partition is quarantined; one still waiting when the
     * quarantine ends is granted by the record that ends it, whatever that record names.
     */
    @Test
    void aWaiterStillWaitingWhenTheQuarantineEndsIsGrantedByTheRecordThatEndsIt() {
        EngineSettings settings = new EngineSettings(new Limits(Duration.ofSeconds(60), 16 * 1024),
                Duration.ofHours(24), new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
        PartitionId partition = new PartitionId("quarantined", 0);
        begin(partition, new StoredPartition(Optional.of("test-topic-id"), PartitionPosition.START,
                Optional.of(settings)), EpochOrigin.FIRST_START);
        List<String> before = oneBatchPerRecord(partition, settings, List.of(
                Batches.record("quarantined", 0, "q", acquire("h", "q", "H", 5, ""), T0),
                Batches.record("quarantined", 1, "q", acquire("w", "q", "W", 30, ",\"wait_ms\":300000"),
                        T0.plusSeconds(1))));
        assertThat(before).noneMatch(out -> isReplyTo("w", out));
        PartitionPosition stood = store.inPartition(partition, tx -> tx.partition()).orElseThrow().position();
        begin(partition, new StoredPartition(Optional.of("test-topic-id"), stood.afterLoss(5), Optional.of(settings)),
                EpochOrigin.RECORDS_LOST);

        List<String> during = oneBatchPerRecord(partition, settings, List.of(
                Batches.record("quarantined", 5, "x", status("s1", "x"), T0.plusSeconds(6))));
        assertThat(during).as("H's lease ended, but lost records may have granted q").noneMatch(out -> isReplyTo("w", out));

        Instant end = T0.plusSeconds(66);
        assertThat(store.leasesEndingBy("quarantined", List.of(0), T0.plusSeconds(70)))
                .as("the ticker shows the quarantine's end where waiters wait").containsEntry(0, end);
        List<String> after = oneBatchPerRecord(partition, settings, List.of(
                Batches.record("quarantined", 6, "y", status("s2", "y"), T0.plusSeconds(67))));
        assertThat(after).anyMatch(out -> isReplyTo("w", out) && out.contains("\"outcome\":\"acquired\""));
    }

    private static void begin(PartitionId partition, StoredPartition started, EpochOrigin origin) {
        store.inPartition(partition, tx -> {
            tx.begin(started, origin, origin.name());
            return null;
        });
    }

    /** What a worker publishes for the log, each record in a batch of its own, read from and written to the database. */
    private static List<String> oneBatchPerRecord(PartitionId partition, EngineSettings settings, List<Inbound> log) {
        if (store.inPartition(partition, tx -> tx.partition()).isEmpty()) {
            begin(partition, new StoredPartition(Optional.of("test-topic-id"), PartitionPosition.START,
                    Optional.of(settings)), EpochOrigin.FIRST_START);
        }
        BatchProcessor processor = Batches.processor(store, settings);
        List<String> out = new ArrayList<>();
        log.forEach(record -> processor.process(partition, List.of(record)).forEach(o -> out.add(text(o))));
        return out;
    }

    /** What the whole log decides in one run from an empty state, as a replay runs it. */
    private static List<String> replay(EngineSettings settings, List<Inbound> log) {
        PartitionState state = PartitionState.empty(PartitionPosition.START);
        state.forReplay();
        PartitionDriver replay = PartitionDriver.log(new PartitionMachine(settings), state);
        List<String> out = new ArrayList<>();
        log.forEach(record -> replay.apply(record).all().forEach(o -> out.add(text(o))));
        return out;
    }

    private static boolean isReplyTo(String requestId, String published) {
        return published.startsWith("{\"request_id\":\"" + requestId + "\"");
    }

    private static String text(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            return new String(reply.value(), StandardCharsets.UTF_8);
        } else if (out instanceof Outbound.Event event) {
            return event.entry().value();
        }
        return out.toString();
    }
}
