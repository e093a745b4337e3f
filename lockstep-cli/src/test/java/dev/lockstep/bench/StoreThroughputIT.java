package dev.lockstep.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import dev.lockstep.testkit.LockstepExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A miniature run of {@code lockstep bench --store}: every round measured and every reply as
 * expected. It asserts that the benchmark works, never how fast anything is.
 */
@Tag("serial") // measures
class StoreThroughputIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void measuresEachRoundAgainstABareTransactionWithEveryReplyAsExpected() throws Exception {
        StringWriter table = new StringWriter();
        StoreThroughput.Result result;
        try (LockStore store = PostgresLockStore.open(env.database())) {
            result = new StoreThroughput(store, Duration.ofMillis(200), Duration.ofMillis(700))
                    .measure(3, 4, new PrintWriter(table));
        }

        assertThat(result.rounds()).extracting(StoreThroughput.Figures::callers).containsExactly(1, 3, 3);
        assertThat(result.rounds()).extracting(StoreThroughput.Figures::batchSize).containsExactly(1, 1, 4);
        assertThat(result.bare()).extracting(StoreThroughput.Figures::callers).containsExactly(1, 3, 3);
        assertThat(result.rounds()).allSatisfy(round -> {
            assertThat(round.commands()).isPositive();
            assertThat(round.commands() % round.batchSize()).isZero();
            assertThat(round.p50Millis()).isPositive();
            assertThat(round.p99Millis()).isGreaterThanOrEqualTo(round.p50Millis());
            assertThat(round.unexpected()).as("replies not acquired or released").isZero();
        });
        assertThat(table.toString().lines()).hasSize(3)
                .allSatisfy(line -> assertThat(line).containsPattern("commands/s .* \\(bare transaction p50 .*×\\)"));
        // Each round ends with a release: every lease the benchmark took is given back.
        assertThat(liveRows()).isZero();
    }

    private static long liveRows() throws SQLException {
        try (Connection connection = DriverManager.getConnection(env.database().jdbcUrl());
                PreparedStatement select = connection.prepareStatement(
                        "SELECT count(*) FROM distributed_locks WHERE topic LIKE 'bench.store.%'");
                ResultSet rs = select.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
