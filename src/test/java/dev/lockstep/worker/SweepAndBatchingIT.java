package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.store.SweepResult;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
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

/** Batched arbitration against the real store: same outcomes as one command at a time; sweeping keeps tokens growing. */
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

    private static List<String> run(String prefix, List<String[]> history, boolean oneBatch) {
        BatchProcessor processor = Batches.processor(store);
        List<Inbound> records = new ArrayList<>();
        for (int i = 0; i < history.size(); i++) {
            String[] c = history.get(i);
            String resource = prefix + c[0];
            String json = "{\"request_id\":\"" + prefix + c[3] + "\",\"resource\":\"" + resource + "\"," + c[1] + "}";
            records.add(Batches.record(prefix, i, resource, json, Optional.of(T0.plusMillis(Long.parseLong(c[2])))));
        }
        PartitionId partition = new PartitionId(prefix, 0);
        List<Outbound> out = new ArrayList<>();
        if (oneBatch) {
            out.addAll(processor.process(partition, records));
        } else {
            records.forEach(r -> out.addAll(processor.process(partition, List.of(r))));
        }
        return out.stream()
                .map(o -> new String(((Outbound.ReplyRecord) o).value(), StandardCharsets.UTF_8).replace(prefix, ""))
                .toList();
    }

    @Test
    void batchingChangesNoOutcome() {
        List<String[]> history = history(42, 600);
        List<String> oneByOne = run("single-", history, false);
        List<String> batched = run("batched-", history, true);
        assertThat(batched).hasSize(600).containsExactlyElementsOf(oneByOne);
        assertThat(batched).anyMatch(r -> r.contains("\"outcome\":\"not_acquired\""))
                .anyMatch(r -> r.contains("\"outcome\":\"released\""))
                .anyMatch(r -> r.contains("\"outcome\":\"forbidden\""))
                .anyMatch(r -> r.contains("\"outcome\":\"renewed\""));
    }

    @Test
    void sweepingEndedLeasesKeepsFencingTokensGrowing() throws Exception {
        BatchProcessor processor = Batches.processor(store);
        PartitionId partition = new PartitionId("sweep", 0);
        Instant t = Instant.now().minusSeconds(120);
        processor.process(partition, List.of(
                Batches.record("sweep", 0, "swept", "{\"request_id\":\"sw-1\",\"type\":\"acquire\",\"resource\":\"swept\","
                        + "\"owner\":\"a\",\"ttl_seconds\":1}", Optional.of(t)),
                Batches.record("sweep", 1, "swept", "{\"request_id\":\"sw-2\",\"type\":\"release\",\"resource\":\"swept\","
                        + "\"owner\":\"a\"}", Optional.of(t.plusMillis(10))),
                Batches.record("sweep", 2, "swept", "{\"request_id\":\"sw-3\",\"type\":\"acquire\",\"resource\":\"swept\","
                        + "\"owner\":\"b\",\"ttl_seconds\":1}", Optional.of(t.plusMillis(20)))));
        long before = store.inPartition(partition, tx -> tx.leasesForUpdate(List.of("swept"))).get("swept").fencingToken();
        assertThat(before).isEqualTo(2);

        Sweeper sweeper = new Sweeper(store, new Retention(Duration.ZERO, Duration.ZERO, Duration.ofSeconds(1), 1),
                Clock.systemUTC());
        SweepResult swept = sweeper.sweepNow();
        assertThat(swept.leases()).isGreaterThanOrEqualTo(1);
        assertThat(swept.replies()).isGreaterThanOrEqualTo(3);
        Map<String, Lease> gone = store.inPartition(partition, tx -> tx.leasesForUpdate(List.of("swept")));
        assertThat(gone).isEmpty();

        List<Outbound> again = processor.process(partition, List.of(Batches.record("sweep", 3, "swept",
                "{\"request_id\":\"sw-4\",\"type\":\"acquire\",\"resource\":\"swept\",\"owner\":\"c\",\"ttl_seconds\":5}",
                Optional.of(Instant.now()))));
        String reply = new String(((Outbound.ReplyRecord) again.get(0)).value(), StandardCharsets.UTF_8);
        long after = store.inPartition(partition, tx -> tx.leasesForUpdate(List.of("swept"))).get("swept").fencingToken();
        assertThat(after).isGreaterThan(before);
        assertThat(reply).contains("\"fencing_token\":" + after);
    }

    @Test
    void theSweepersQueriesUseTheirIndexes() throws Exception {
        try (Connection c = env.jdbc(); Statement st = c.createStatement()) {
            st.execute("SET enable_seqscan = off"); // a tiny test table would otherwise be scanned anyway
            assertThat(plan(st, "EXPLAIN SELECT resource FROM distributed_locks WHERE expires_at < now() "
                    + "ORDER BY expires_at LIMIT 1000")).contains("distributed_locks_expires_at");
            assertThat(plan(st, "EXPLAIN SELECT request_id FROM request_log WHERE applied_at < now() "
                    + "ORDER BY applied_at LIMIT 1000")).contains("request_log_applied_at");
        }
    }

    private static String plan(Statement st, String sql) throws Exception {
        StringBuilder plan = new StringBuilder();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                plan.append(rs.getString(1)).append('\n');
            }
        }
        return plan.toString();
    }
}
