package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LeaseLost;
import dev.lockstep.client.LockClient;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Renewals nobody answers: the worker that would answer them is frozen (SIGSTOP), as a cut-off
 * broker or a stopped VM would leave a holder. The holder must learn by its lease's local validity
 * end that the lease is gone, before the log ends it.
 */
@Tag("serial") // times the loss signal against the validity end to 100 ms
class FrozenRenewalsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static ChildWorker worker;

    @BeforeAll
    static void start() {
        worker = ChildWorker.startApplying(env, "frozen-renewals");
    }

    @AfterAll
    static void stop() throws Exception {
        worker.close();
    }

    @Test
    void aHolderWhoseRenewalsGoUnansweredIsToldBeforeTheLogEndsItsLease() throws Exception {
        Duration ttl = Duration.ofSeconds(3);
        try (LockClient client = env.startClient()) {
            HeldLease lease = client.blocking().tryAcquire("unanswered", "holder", ttl, Duration.ofSeconds(60))
                    .orElseThrow();
            // When the loss was signalled, and the validity end the holder then had, on one clock.
            CompletableFuture<long[]> lossSeen = lease.lost()
                    .thenApply(loss -> new long[] {System.nanoTime(), lease.validUntil().nanos()});
            Instant granted = lease.expiresAt();
            await().atMost(Duration.ofSeconds(10)).until(() -> lease.expiresAt().isAfter(granted)); // renewed
            worker.freeze();
            long frozenAt = System.nanoTime();
            try {
                // The last renewal answered was sent before the freeze: its validity ends 90 % of the TTL after.
                long[] seen = lossSeen.get(10, TimeUnit.SECONDS);
                LeaseLost loss = lease.lost().join();
                assertThat(loss.reason()).isEqualTo(LeaseLost.Reason.EXPIRED);
                assertThat(Duration.ofNanos(seen[1] - frozenAt)).as("the validity end, from the freeze")
                        .isLessThanOrEqualTo(ttl.multipliedBy(9).dividedBy(10));
                assertThat(Duration.ofNanos(seen[0] - seen[1])).as("the loss signalled, from the validity end")
                        .isBetween(Duration.ZERO, Duration.ofMillis(100));
                assertThat(loss.at()).as("before the lease's end in the log").isBefore(lease.expiresAt());
            } finally {
                worker.thaw();
            }
        }
    }
}
