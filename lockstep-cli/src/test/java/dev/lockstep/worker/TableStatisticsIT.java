package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.engine.Inbound;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fresh database's hot tables get planner statistics from the worker, without waiting for
 * autovacuum: its plans (the leases' reads, the generic plans PostgreSQL caches) are made for
 * the tables as they are. The request lookup no longer depends on them (StorePlansIT).
 */
class TableStatisticsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void filledTablesAreAnalyzedWithoutWaitingForAutovacuum() throws Exception {
        try (LockStore store = PostgresLockStore.open(env.database())) {
            PartitionId partition = new PartitionId("stats", 0);
            Batches.start(store, partition);
            BatchProcessor processor = Batches.processor(store);
            Instant start = Instant.parse("2026-12-04T00:00:00Z");
            List<Inbound> batch = new ArrayList<>();
            IntStream.range(0, 1_500).forEach(i -> batch.add(Batches.record("stats", i, "r-" + i,
                    "{\"request_id\":\"q" + i + "\",\"type\":\"acquire\",\"resource\":\"r-" + i
                            + "\",\"owner\":\"o\",\"ttl_seconds\":60}", start.plusMillis(i))));
            for (int from = 0; from < batch.size(); from += 100) {
                processor.process(partition, batch.subList(from, from + 100));
            }
            assertThat(analyzed("request_log")).as("a fresh table, before any sweep").isFalse();

            // The statistics collector reports changes within a second or so.
            await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
                    .until(store::giveNewTablesStatistics);
            assertThat(List.of("request_log", "distributed_locks", "lease_events")).allSatisfy(
                    table -> assertThat(analyzed(table)).as(table).isTrue());
        }
    }

    private static boolean analyzed(String table) throws SQLException {
        try (Connection connection = DriverManager.getConnection(env.database().jdbcUrl());
                PreparedStatement select = connection.prepareStatement("SELECT last_analyze IS NOT NULL "
                        + "OR last_autoanalyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = ?")) {
            select.setString(1, table);
            try (ResultSet rs = select.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
