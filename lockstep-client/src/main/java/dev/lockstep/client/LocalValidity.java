package dev.lockstep.client;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Until when a held lease may be acted on, on a monotonic clock, and the timer that says when that
 * end has passed. The timer is armed for the end on the same clock it is checked against; one that
 * runs before the end (a timer is not the clock) is armed again; a renewal moves the end, never
 * back. So the end is signalled once it passes, however many renewals failed or hang meanwhile.
 */
final class LocalValidity {

    private final MonotonicClock clock;
    private final ScheduledExecutorService scheduler;
    private final Runnable passed;
    private MonotonicInstant end;
    private ScheduledFuture<?> timer;
    private boolean stopped;

    /** @param passed runs once, on the scheduler's thread, when the end has passed */
    LocalValidity(MonotonicClock clock, ScheduledExecutorService scheduler, MonotonicInstant end, Runnable passed) {
        this.clock = clock;
        this.scheduler = scheduler;
        this.end = end;
        this.passed = passed;
    }

    /** Arms the timer. */
    synchronized void start() {
        arm();
    }

    synchronized MonotonicInstant end() {
        return end;
    }

    /** A later end (a renewal answered); an earlier one changes nothing. */
    synchronized void extend(MonotonicInstant later) {
        if (!stopped && end.isBefore(later)) {
            end = later;
            arm();
        }
    }

    synchronized boolean hasPassed() {
        return !clock.now().isBefore(end);
    }

    /** Disarms the timer for good: the lease was closed or is known lost. */
    synchronized void stop() {
        stopped = true;
        if (timer != null) {
            timer.cancel(false);
        }
    }

    private void check() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            if (!hasPassed()) {
                arm();
                return;
            }
            stopped = true;
        }
        passed.run();
    }

    private void arm() {
        if (timer != null) {
            timer.cancel(false);
        }
        long delay = Math.max(0, clock.now().until(end).toNanos());
        timer = scheduler.schedule(this::check, delay, TimeUnit.NANOSECONDS);
    }
}
