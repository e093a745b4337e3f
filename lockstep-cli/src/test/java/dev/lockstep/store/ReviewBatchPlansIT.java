package dev.lockstep.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Review of issue 42: the batch's lease read after the change ({@link LeaseRows#SELECT}). Before it,
 * "resource = ANY(?) OR (topic = ? AND partition = ? AND expires_at in the window)" was a BitmapOr of
 * the table's two indexes; "resource IN (SELECT ... )" inside an OR is not indexable, so every batch
 * of every partition reads the whole of {@code distributed_locks} (every topic's and partition's
 * leases, expired ones kept for the request retention). Measured on 200,000 rows: 0.1 ms before,
 * 20 ms after, per batch. Fails on the code as reviewed.
 */
class ReviewBatchPlansIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aBatchReadsItsLeasesThroughTheIndexesNotTheWholeTable() throws SQLException {
        try (LockStore store = PostgresLockStore.open(env.database()); Connection connection = env.jdbc()) {
            try (Statement fill = connection.createStatement()) {
                fill.execute("INSERT INTO distributed_locks (resource, owner, fencing_token, acquired_at, expires_at, "
                        + "topic, partition) SELECT 'plans-' || i, 'o', i + 1, timestamptz '2026-12-04 00:00:00+00', "
                        + "timestamptz '2026-12-04 00:00:00+00' + (i % 3600) * interval '1 s', 'plans', i % 12 "
                        + "FROM generate_series(0, 49999) AS i");
                fill.execute("ANALYZE distributed_locks");
            }
            Instant clock = Instant.parse("2026-12-04T00:00:00Z");
            List<String> plan = new ArrayList<>();
            try (PreparedStatement explain = connection.prepareStatement("EXPLAIN " + LeaseRows.SELECT)) {
                explain.setArray(1, connection.createArrayOf("text", new Object[] {"plans-0", "plans-12"}));
                explain.setString(2, "plans");
                explain.setInt(3, 0);
                explain.setLong(4, clock.toEpochMilli());
                explain.setLong(5, clock.plusSeconds(1).toEpochMilli());
                try (ResultSet rs = explain.executeQuery()) {
                    while (rs.next()) {
                        plan.add(rs.getString(1));
                    }
                }
            }
            assertThat(plan).as(String.join("\n", plan))
                    .noneMatch(line -> line.contains("Seq Scan on distributed_locks"));
        }
    }
}
