package dev.lockstep.it;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static dev.lockstep.testkit.Commands.renew;
import static dev.lockstep.testkit.Commands.status;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.testkit.LockstepExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The seed API's attack cases ATK-01..ATK-12, carried over to Kafka, against a real worker. */
class AttackCasesIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @BeforeAll
    static void startWorker() {
        env.startWorker();
    }

    private static String outcome(JsonNode reply) {
        return reply.path("outcome").asText();
    }

    @Test
    void atk01_acquiringALockHeldByAnotherOwnerIsRefused() {
        assertThat(outcome(env.call(acquire(newId(), "atk01", "owner-a", 60)))).isEqualTo("acquired");
        JsonNode refused = env.call(acquire(newId(), "atk01", "attacker", 60));
        assertThat(outcome(refused)).isEqualTo("not_acquired");
        assertThat(refused.path("acquired").asBoolean(true)).isFalse();
        assertThat(refused.path("retry_after_ms").asLong()).isBetween(1L, 60_500L); // the TTL, and the half second a lease is dated late
        assertThat(refused.toString()).doesNotContain("owner-a");
    }

    @Test
    void atk02_releasingSomeoneElsesLockIsForbidden() {
        env.call(acquire(newId(), "atk02", "owner-a", 60));
        assertThat(outcome(env.call(release(newId(), "atk02", "attacker")))).isEqualTo("forbidden");
        assertThat(outcome(env.call(status(newId(), "atk02")))).isEqualTo("locked");
    }

    @Test
    void atk03_anExpiredLockCanBeTakenByAnyoneWithAGreaterToken() throws InterruptedException {
        JsonNode first = env.call(acquire(newId(), "atk03", "owner-a", 1));
        Thread.sleep(2_500); // a 1 s lease, dated half a second late, ends by then
        JsonNode second = env.call(acquire(newId(), "atk03", "owner-b", 60));
        assertThat(outcome(second)).isEqualTo("acquired");
        assertThat(second.path("lock").path("fencing_token").asLong())
                .isGreaterThan(first.path("lock").path("fencing_token").asLong());
    }

    @Test
    void atk04_renewingSomeoneElsesLockIsForbidden() {
        env.call(acquire(newId(), "atk04", "owner-a", 60));
        assertThat(outcome(env.call(renew(newId(), "atk04", "attacker", 3600)))).isEqualTo("forbidden");
    }

    @Test
    void atk05_zeroOrNegativeTtlsAreInvalid() {
        for (long ttl : new long[] {0, -100}) {
            JsonNode reply = env.call(acquire(newId(), "atk05", "owner-a", ttl));
            assertThat(outcome(reply)).isEqualTo("invalid");
            assertThat(reply.path("problem").path("errors").get(0).path("field").asText()).isEqualTo("ttl_seconds");
        }
        assertThat(outcome(env.call(status(newId(), "atk05")))).isEqualTo("not_found");
    }

    @Test
    void atk06_sqlInResourceNamesIsATrueLiteral() throws Exception {
        String resource = "resource'; DROP TABLE distributed_locks; --";
        JsonNode reply = env.call(acquire(newId(), resource, "owner-a", 60));
        assertThat(outcome(reply)).isEqualTo("acquired");
        assertThat(reply.path("lock").path("resource").asText()).isEqualTo(resource);
        try (Connection c = env.jdbc(); Statement st = c.createStatement();
                ResultSet rs = st.executeQuery("SELECT count(*) FROM distributed_locks")) {
            rs.next();
            assertThat(rs.getLong(1)).isPositive();
        }
    }

    @Test
    void atk07_emptyOrBlankOwnersAreInvalid() {
        env.call(acquire(newId(), "atk07", "owner-a", 60));
        for (String owner : List.of("", " ")) {
            JsonNode reply = env.call(release(newId(), "atk07", owner));
            assertThat(outcome(reply)).isEqualTo("invalid");
            assertThat(reply.path("problem").path("errors").get(0).path("field").asText()).isEqualTo("owner");
            assertThat(outcome(env.call(renew(newId(), "atk07", owner, 60)))).isEqualTo("invalid");
        }
        assertThat(outcome(env.call(status(newId(), "atk07")))).isEqualTo("locked");
    }

    @Test
    void atk08_nonIntegerTtlsAreInvalid() {
        ObjectNode asString = acquire(newId(), "atk08", "owner-a", 1).put("ttl_seconds", "3600");
        ObjectNode asFloat = acquire(newId(), "atk08", "owner-a", 1).put("ttl_seconds", 60.5);
        assertThat(outcome(env.call(asString))).isEqualTo("invalid");
        assertThat(outcome(env.call(asFloat))).isEqualTo("invalid");
    }

    @Test
    void atk09_theSameOwnerReacquiringExtendsTheSameLease() {
        JsonNode first = env.call(acquire(newId(), "atk09", "owner-a", 30));
        JsonNode again = env.call(acquire(newId(), "atk09", "owner-a", 60));
        assertThat(outcome(again)).isEqualTo("acquired");
        assertThat(again.path("lock").path("fencing_token")).isEqualTo(first.path("lock").path("fencing_token"));
        assertThat(again.path("lock").path("expires_at").asText())
                .isGreaterThan(first.path("lock").path("expires_at").asText());
    }

    @Test
    void atk10_ofTwentyOwnersRacingForOneResourceExactlyOneWins() throws Exception {
        List<ObjectNode> commands = IntStream.range(0, 20)
                .mapToObj(i -> acquire(newId(), "atk10", "racer-" + i, 60))
                .toList();
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            for (ObjectNode command : commands) {
                pool.submit(() -> env.send(command));
            }
        } finally {
            pool.shutdown();
        }
        List<String> outcomes = commands.stream()
                .map(c -> outcome(env.awaitReply(c.path("request_id").asText())))
                .toList();
        assertThat(outcomes).filteredOn("acquired"::equals).hasSize(1);
        assertThat(outcomes).filteredOn("not_acquired"::equals).hasSize(19);
    }

    @Test
    void atk11_statusOfAMissingOrExpiredLockIsNotFound() throws InterruptedException {
        assertThat(outcome(env.call(status(newId(), "atk11-never")))).isEqualTo("not_found");
        env.call(acquire(newId(), "atk11", "owner-a", 1));
        Thread.sleep(2_500); // a 1 s lease, dated half a second late, ends by then
        JsonNode expired = env.call(status(newId(), "atk11"));
        assertThat(outcome(expired)).isEqualTo("not_found");
        assertThat(expired.has("lock")).isFalse();
    }

    @Test
    void atk12_resourceNamesAreBoundedAt255Characters() {
        String longest = "r".repeat(255);
        assertThat(outcome(env.call(acquire(newId(), longest, "owner-a", 60)))).isEqualTo("acquired");
        JsonNode tooLong = env.call(acquire(newId(), "r".repeat(256), "owner-a", 60));
        assertThat(outcome(tooLong)).isEqualTo("invalid");
        assertThat(tooLong.path("problem").path("errors").get(0).path("field").asText()).isEqualTo("resource");
    }
}
