package dev.lockstep.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The worker's database sessions as the server sees them. Each session's settings (a durable
 * commit, the statement, lock and idle timeouts) are set when the pool opens it, outside any
 * transaction: set inside one, they would be undone by that session's first rollback (a ping, a
 * failed batch), and the session would wait in that open transaction until its first batch or
 * until the server's idle timeout ended it (which it did, every 30 s, to every session a quiet
 * worker's pool kept spare).
 */
class StoreSessionsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void theWorkersSessionsWaitOutsideAnyTransaction() throws SQLException {
        try (LockStore store = PostgresLockStore.open(env.database()); Connection admin = env.jdbc()) {
            // The pool opens its sessions in the background; the ping's rollback is the first
            // thing one of them does.
            store.ping();
            int pool = env.database().poolSize();
            await().atMost(Duration.ofSeconds(10)).until(() -> states(admin).values().stream().mapToInt(i -> i).sum(),
                    count -> count >= pool);
            assertThat(states(admin)).containsOnlyKeys("idle");
        }
    }

    /** The worker's sessions on this database, by state. */
    private static Map<String, Integer> states(Connection admin) throws SQLException {
        Map<String, Integer> states = new TreeMap<>();
        try (PreparedStatement select = admin.prepareStatement("SELECT state, count(*) FROM pg_stat_activity "
                + "WHERE datname = current_database() AND application_name = ? GROUP BY state")) {
            select.setString(1, PostgresLockStore.APPLICATION_NAME);
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    states.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return states;
    }
}
