package dev.lockstep.client;

import dev.lockstep.core.Share;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Work to run under a lock with {@link LockClient#withLock}. It receives the lease: pass
 * {@link HeldLease#fencingToken()} to the protected resource, and stop when interrupted (the
 * lease was lost) or when {@link HeldLease#isLost()} says so.
 */
@FunctionalInterface
public interface LockedAction<T> {

    T run(HeldLease lease) throws InterruptedException;

    /** Acquire, run on the calling thread, interrupt it if the lease is lost, release. */
    static <T> Optional<T> run(LockClient client, String resource, String owner, Duration ttl, Duration wait,
            Share share, LockedAction<T> action) throws InterruptedException {
        Optional<HeldLease> acquired;
        try {
            acquired = client.tryAcquire(resource, owner, ttl, wait, share).join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        if (acquired.isEmpty()) {
            return Optional.empty();
        }
        Thread worker = Thread.currentThread();
        try (HeldLease lease = acquired.get()) {
            CompletableFuture<Void> interrupter = lease.lost().thenAccept(loss -> worker.interrupt());
            T result;
            try {
                result = action.run(lease);
            } catch (InterruptedException e) {
                if (lease.isLost()) {
                    throw new LeaseLostException(lease.lost().join());
                }
                throw e;
            } finally {
                interrupter.cancel(false);
            }
            if (lease.isLost()) {
                Thread.interrupted(); // the interrupt was ours, not the caller's
                throw new LeaseLostException(lease.lost().join());
            }
            return Optional.of(result);
        }
    }
}
