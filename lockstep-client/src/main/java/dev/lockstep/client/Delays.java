package dev.lockstep.client;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Pauses on the client's timer (a retry's backoff, a campaign's pause after a failure) that end
 * when the client closes instead of never: the timer drops what it had not run yet, and a caller
 * waiting on a pause it dropped would wait for good.
 */
final class Delays {

    private final ScheduledExecutorService timer;
    private final Set<CompletableFuture<Void>> waiting = ConcurrentHashMap.newKeySet();
    private volatile Optional<LockClientException> closed = Optional.empty();

    Delays(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** The client's timer: one daemon thread for renewals, timeouts, validity ends and pauses. */
    static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = new Thread(r, "lockstep-client-timer");
            thread.setDaemon(true);
            return thread;
        });
        timer.setRemoveOnCancelPolicy(true);
        // Closing drops what is due later (renewals, timeouts, validity ends) without interrupting
        // the timer's thread: the client may be closed on it (from a loss listener).
        timer.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return timer;
    }

    /**
     * Completes on the timer's thread once {@code delay} has passed; fails with {@code cause} of
     * {@link #close} if the client closes first, or has.
     */
    CompletableFuture<Void> after(Duration delay) {
        CompletableFuture<Void> pause = new CompletableFuture<>();
        waiting.add(pause);
        pause.whenComplete((ignored, error) -> waiting.remove(pause));
        try {
            ScheduledFuture<?> due = timer.schedule(() -> pause.complete(null), delay.toNanos(), TimeUnit.NANOSECONDS);
            pause.whenComplete((ignored, error) -> due.cancel(false));
        } catch (RejectedExecutionException e) {
            pause.completeExceptionally(closed.orElseGet(() -> new LockClientException("the client is closed", e)));
        }
        // Added as close ran, it may have been missed there.
        closed.ifPresent(pause::completeExceptionally);
        return pause;
    }

    /** Fails every pause, on the caller's thread, and every later one at once. */
    void close(LockClientException cause) {
        closed = Optional.of(cause);
        waiting.forEach(pause -> pause.completeExceptionally(cause));
    }
}
