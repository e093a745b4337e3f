package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A lease's local validity on a clock the test sets, with a real timer thread (which keeps its own time). */
class LocalValidityTest {

    private final ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    private final SetClock clock = new SetClock();

    /** A monotonic clock that reads what the test set. */
    private static final class SetClock implements MonotonicClock {

        private volatile long nanos;

        @Override
        public MonotonicInstant now() {
            return new MonotonicInstant(nanos);
        }

        void set(Duration sinceOrigin) {
            nanos = sinceOrigin.toNanos();
        }
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private static MonotonicInstant at(long millis) {
        return new MonotonicInstant(TimeUnit.MILLISECONDS.toNanos(millis));
    }

    @Test
    void aTimerThatRunsBeforeTheEndByTheClockIsArmedAgainAndSignalsOnceTheEndHasPassed() throws Exception {
        CountDownLatch passed = new CountDownLatch(1);
        LocalValidity validity = new LocalValidity(clock, scheduler, at(50), passed::countDown);
        validity.start();
        // The timer runs after 50 ms of its own, while the validity's clock still reads 0.
        assertThat(passed.await(300, TimeUnit.MILLISECONDS)).as("signalled before its end").isFalse();
        clock.set(Duration.ofMillis(50));
        assertThat(passed.await(2, TimeUnit.SECONDS)).as("signalled once its end passed").isTrue();
    }

    @Test
    void aRenewalMovesTheEndOnButNeverBack() throws Exception {
        AtomicInteger signals = new AtomicInteger();
        LocalValidity validity = new LocalValidity(clock, scheduler, at(100), signals::incrementAndGet);
        validity.start();
        validity.extend(at(10_000));
        validity.extend(at(5_000));
        assertThat(validity.end()).isEqualTo(at(10_000));
        clock.set(Duration.ofMillis(9_999));
        Thread.sleep(300);
        assertThat(signals).as("before the extended end").hasValue(0);
        assertThat(validity.hasPassed()).isFalse();
        clock.set(Duration.ofMillis(10_000));
        assertThat(validity.hasPassed()).isTrue();
    }

    @Test
    void anEndAlreadyPastIsSignalledAtOnceAndOnlyOnce() throws Exception {
        clock.set(Duration.ofSeconds(3));
        CountDownLatch passed = new CountDownLatch(2);
        LocalValidity validity = new LocalValidity(clock, scheduler, at(2_700), passed::countDown);
        validity.start();
        validity.extend(at(2_800)); // a renewal answered too late changes nothing once it is signalled
        assertThat(passed.await(500, TimeUnit.MILLISECONDS)).as("signalled twice").isFalse();
        assertThat(passed.getCount()).as("signalled once").isEqualTo(1);
    }

    @Test
    void aStoppedValidityNeverSignals() throws Exception {
        CountDownLatch passed = new CountDownLatch(1);
        LocalValidity validity = new LocalValidity(clock, scheduler, at(20), passed::countDown);
        validity.start();
        validity.stop();
        clock.set(Duration.ofSeconds(1));
        assertThat(passed.await(300, TimeUnit.MILLISECONDS)).isFalse();
    }
}
