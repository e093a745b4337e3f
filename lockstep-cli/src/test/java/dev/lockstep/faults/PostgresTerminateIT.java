package dev.lockstep.faults;

import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PostgreSQL terminating the worker's connections (pg_terminate_backend) again and again under load. */
class PostgresTerminateIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void terminatedConnectionsCostRetriesNotCorrectness() throws Exception {
        try (FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "PostgreSQL connections terminated (pg_terminate_backend) x5")) {
            env.startWorker(env.workerSettings().withGroupId("db-terminate"));
            for (int round = 0; round < 5; round++) {
                run.load().awaitPublished(250);
                // the worker reconnects after the previous round; terminate once it has
                Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                        .until(() -> terminateConnections(env) > 0);
                run.faultInjected();
            }
            run.load().awaitPublished(1_500);
            run.check();
        }
    }

    /** Terminates every connection to the test class's database but our own; returns how many. */
    static int terminateConnections(LockstepExtension env) throws SQLException {
        try (Connection admin = env.serverAdmin(); PreparedStatement st = admin.prepareStatement(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        + "WHERE datname = ? AND pid <> pg_backend_pid()")) {
            st.setString(1, env.databaseName());
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }
}
