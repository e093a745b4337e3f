package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Verdict;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a holder believes against what the log says: a lease's local validity, however it was granted. */
class LeaseValidityIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockClient client;

    @BeforeAll
    static void start() {
        env.startWorker();
        client = env.startClient();
    }

    @AfterAll
    static void stop() {
        client.close();
    }

    /**
     * A waiter granted after waiting twice its TTL: the lease began at the grant, not at the
     * acquire's send, so it is held and renewed, not taken for expired the moment it comes.
     */
    @Test
    void aGrantAfterAWaitLongerThanItsTtlIsHeldAndRenewed() throws Exception {
        HeldLease holder = client.blocking().tryAcquire("waited-long", "holder", Duration.ofSeconds(30), Duration.ZERO)
                .orElseThrow();
        CompletableFuture<Optional<HeldLease>> waiting = client.tryAcquire("waited-long", "waiter",
                Duration.ofSeconds(3), Duration.ofSeconds(30));
        Thread.sleep(6_000);
        assertThat(waiting).as("it waits in the queue").isNotDone();
        holder.close();
        try (HeldLease granted = waiting.get(10, TimeUnit.SECONDS).orElseThrow()) {
            assertThat(granted.fencingToken()).isGreaterThan(holder.fencingToken());
            // Longer than the TTL: only renewals keep it, and the holder must still believe it holds it.
            Thread.sleep(4_000);
            assertThat(granted.lost()).as("lost: %s", granted.lost().getNow(null)).isNotDone();
            assertThat(client.blocking().status("waited-long")).isInstanceOfSatisfying(Verdict.Locked.class,
                    locked -> assertThat(locked.lease().fencingToken()).isEqualTo(granted.fencingToken()));
        }
        assertThat(client.blocking().status("waited-long")).isEqualTo(new Verdict.NotFound());
    }
}
