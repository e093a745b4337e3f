package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.TopicCollector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What a holder believes against what the log says: a lease's local validity, however it was granted. */
@Tag("serial") // times the loss signal against the validity end
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

    /**
     * The caller abandons an acquire (as a candidate resigns) just as its grant is being taken over:
     * the caller gets nothing, so the lease must not stay behind renewing itself with nobody to close it.
     */
    @Test
    void aGrantTakenOverAsItsAcquireIsAbandonedIsNotLeftRenewingItself() throws Exception {
        // The clock is read on the caller's thread as the acquire is sent, then on the thread its reply
        // completes on, as the grant is taken over: the abandon lands right then.
        Thread caller = Thread.currentThread();
        AtomicReference<Runnable> asTheGrantIsTakenOver = new AtomicReference<>();
        MonotonicClock clock = () -> {
            if (Thread.currentThread() != caller) {
                Optional.ofNullable(asTheGrantIsTakenOver.getAndSet(null)).ifPresent(Runnable::run);
            }
            return new MonotonicInstant(System.nanoTime());
        };
        try (LockClient racing = LockClient.start(client.settings(), clock);
                TopicCollector commands = env.collect(env.topics().commands())) {
            AcquireAttempts attempts = new AcquireAttempts(racing, "abandoned", "racer", Duration.ofSeconds(3),
                    Share.EXCLUSIVE, Instant.now().plusSeconds(10));
            asTheGrantIsTakenOver.set(() -> attempts.abandon().join());
            assertThat(attempts.start().get(10, TimeUnit.SECONDS)).as("abandoned: the caller gets no lease").isEmpty();
            assertThat(asTheGrantIsTakenOver).as("the abandon landed").hasValue(null);
            Thread.sleep(2_500); // past the first renewal's time (a third of the TTL)
            assertThat(commands.matching(r -> text(r).contains("\"type\":\"renew\"")
                    && text(r).contains("\"resource\":\"abandoned\""))).as("renewals of a lease nobody holds").isEmpty();
            assertThat(client.blocking().status("abandoned")).isEqualTo(new Verdict.NotFound());
        }
    }

    /**
     * A grant whose reply comes after the lease's local validity (a worker that took the partition
     * over, a link that healed) is never handed over as held: the acquire is sent again, extends
     * the lease from a send of its own, and that lease is held.
     */
    @Test
    void aGrantThatComesAfterItsLocalValidityIsAcquiredAgainNotHandedOverDead() throws Exception {
        Thread caller = Thread.currentThread();
        AtomicLong skew = new AtomicLong();
        // The reply "comes" a TTL late: the clock jumps as it is first read off the caller's thread.
        MonotonicClock clock = () -> {
            if (Thread.currentThread() != caller) {
                skew.compareAndSet(0, Duration.ofSeconds(3).toNanos());
            }
            return new MonotonicInstant(System.nanoTime() + skew.get());
        };
        try (LockClient late = LockClient.start(client.settings(), clock);
                TopicCollector commands = env.collect(env.topics().commands())) {
            HeldLease held = late.tryAcquire("late-reply", "slow", Duration.ofSeconds(3), Duration.ofSeconds(10))
                    .get(10, TimeUnit.SECONDS).orElseThrow();
            assertThat(held.isLost()).as("handed over alive").isFalse();
            assertThat(commands.matching(r -> text(r).contains("\"type\":\"acquire\"")
                    && text(r).contains("\"resource\":\"late-reply\""))).as("sent again after the late grant").hasSize(2);
            held.close();
        }
    }

    /**
     * Cut off from the broker, a renewal's send blocks while Kafka waits for metadata; the loss is
     * signalled at the local validity end all the same: no send holds up the timer that says so.
     */
    @Test
    void aHolderCutOffFromTheBrokerIsToldOfTheLossAtItsValidityEnd() throws Exception {
        try (LockClient behind = env.startClient(LockClientSettings.defaults(env.proxiedKafka()).withTopics(env.topics()))) {
            HeldLease held = behind.blocking().tryAcquire("cut-off", "holder", Duration.ofSeconds(3), Duration.ZERO)
                    .orElseThrow();
            env.brokerLink().cut();
            LeaseLost lost = held.lost().get(10, TimeUnit.SECONDS);
            MonotonicInstant toldAt = MonotonicClock.system().now();
            assertThat(lost.reason()).isEqualTo(LeaseLost.Reason.EXPIRED);
            assertThat(held.validUntil().until(toldAt)).as("told after its validity end by")
                    .isLessThan(Duration.ofMillis(250));
            env.brokerLink().heal();
        }
    }

    private static String text(ConsumerRecord<byte[], byte[]> record) {
        return record.value() == null ? "" : new String(record.value(), StandardCharsets.UTF_8);
    }
}
