package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.testkit.LockstepExtension;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every database connection of a worker under load goes half-open at once, as when a NAT or a
 * cloud load balancer between the worker and PostgreSQL silently drops its connections: no byte
 * passes either way, and neither end is told. New connections pass. With the shipped timeouts the
 * worker gives a silent connection up (the socket timeout; the server ends its side, and releases
 * its locks, by the idle-in-transaction timeout) and retries on a fresh one: every partition
 * answers again within 10 s, and the history is clean.
 */
@Tag("serial") // measures how soon callers are answered again
class HalfOpenDatabaseIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration BOUND = Duration.ofSeconds(10);

    @Test
    void aWorkerWhoseDatabaseConnectionsGoHalfOpenAnswersAgainWithinTenSeconds() throws Exception {
        String direct = env.database().jdbcUrl();
        URI server = URI.create(direct.substring("jdbc:".length()));
        try (SwitchingProxy proxy = SwitchingProxy.to(server.getPort());
                FaultRun run = FaultRun.start(env, env.kafka(), env.topics(), "database connections half-open")) {
            DatabaseSettings throughProxy = DatabaseSettings.of(direct.replaceFirst("//[^/]+/",
                    "//127.0.0.1:" + proxy.port() + "/"));
            env.startWorker(env.workerSettings(), throughProxy);
            LockClient client = env.startClient(LockClientSettings.defaults(env.kafka()).withTopics(env.topics())
                    .withRequestTimeout(Duration.ofSeconds(90)));
            try (RecoveryProbes probes = RecoveryProbes.start(client, "half-open", LockstepExtension.PARTITIONS)) {
                run.load().awaitPublished(500);
                proxy.halfOpenAll();
                probes.faultInjected();
                run.faultInjected();
                Thread.sleep(BOUND.plusSeconds(5).toMillis());
                RecoveryProbes.Figures figures = probes.finish(Duration.ofSeconds(90));
                figures.report("database connections half-open (a proxy stops forwarding)", "");
                assertThat(figures.longest()).as("the longest wait of %d requests", figures.requests()).isLessThan(BOUND);
            }
            run.check();
        }
    }
}
