package dev.lockstep.faults;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LockClient;
import dev.lockstep.core.Share;
import dev.lockstep.history.Belief;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Java clients in the test's JVM, each a thread that takes leases with {@code tryAcquire} and holds
 * them as a user of {@link HeldLease} would: it acts (writes to the fenced store with its token)
 * from when the lease is handed to it until its hold is over or {@link HeldLease#lost()} completes,
 * and records that as its belief.
 *
 * <p>Threads may share an owner: lockstep then sees one holder, and a release by any of them ends
 * the lease for all ({@code docs/client.md}, owners). Such threads release only when none of them
 * holds the lease or waits for it any more: the last one out closes every lease the owner's threads
 * were handed.
 */
final class JavaHolders implements AutoCloseable {

    private static final Duration WRITE_EVERY = Duration.ofMillis(250);

    private final BeliefRecorder recorder;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final List<CompletableFuture<Void>> loops = new ArrayList<>();
    private final SplittableRandom seeds;
    private volatile boolean stopping;

    JavaHolders(BeliefRecorder recorder, long seed) {
        this.recorder = recorder;
        this.seeds = new SplittableRandom(seed);
    }

    /** Threads that hold leases under one owner: one holder to lockstep. */
    static final class SharedOwner {

        private final String owner;
        private final List<HeldLease> handed = new ArrayList<>(); // guarded by this
        private int busy; // threads waiting for or holding the owner's lease; guarded by this

        SharedOwner(String owner) {
            this.owner = owner;
        }

        synchronized void enter() {
            busy++;
        }

        /** The last thread out releases every lease the owner's threads were handed. */
        void leave(Optional<HeldLease> lease) {
            List<HeldLease> release;
            synchronized (this) {
                lease.ifPresent(handed::add);
                if (--busy > 0) {
                    return;
                }
                release = List.copyOf(handed);
                handed.clear();
            }
            release.forEach(HeldLease::close);
        }
    }

    /** A thread of its own owner. */
    void start(String client, LockClient locks, Contention contention) {
        start(client, locks, contention, new SharedOwner(client));
    }

    /** A thread that shares {@code owner} with others. */
    synchronized void start(String client, LockClient locks, Contention contention, SharedOwner owner) {
        SplittableRandom random = seeds.split();
        loops.add(CompletableFuture.runAsync(() -> loop(client, locks, contention, owner, random), threads));
    }

    private void loop(String client, LockClient locks, Contention contention, SharedOwner owner,
            SplittableRandom random) {
        Share share = contention.limit() == 0 ? Share.EXCLUSIVE : Share.shared(contention.limit());
        while (!stopping) {
            recorder.state(client, BeliefRecorder.State.WAITING);
            owner.enter();
            Optional<HeldLease> lease = Optional.empty();
            try {
                lease = locks.tryAcquire(contention.resource(), owner.owner, contention.ttl(), contention.maxWait(), share)
                        .get(contention.maxWait().plus(locks.settings().requestTimeout()).plusSeconds(30).toMillis(),
                                TimeUnit.MILLISECONDS);
                lease.ifPresent(held -> hold(client, held, share, contention, random));
            } catch (ExecutionException e) {
                // No reply in time, the link cut: tryAcquire cancelled its acquire; ask again.
                recorder.state(client, BeliefRecorder.State.IDLE);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (TimeoutException e) {
                throw new IllegalStateException(client + ": tryAcquire outlived its wait and timeout", e);
            } finally {
                owner.leave(lease);
            }
            pause(Duration.ofMillis(random.nextLong(contention.maxIdle().toMillis() + 1)));
        }
    }

    private void hold(String client, HeldLease lease, Share share, Contention contention, SplittableRandom random) {
        Instant from = recorder.now();
        AtomicReference<Instant> lostAt = new AtomicReference<>();
        lease.lost().thenAccept(loss -> lostAt.compareAndSet(null, recorder.now()));
        if (lostAt.get() != null) {
            recorder.handedStale(client);
            return;
        }
        recorder.state(client, BeliefRecorder.State.HOLDING);
        Instant end = from.plusMillis(random.nextLong(contention.minHold().toMillis(), contention.maxHold().toMillis() + 1));
        for (Instant now = from; !stopping && lostAt.get() == null && now.isBefore(end); now = recorder.now()) {
            if (share.exclusive()) {
                recorder.store().write(client, contention.resource(), lease.fencingToken(), now);
            }
            try {
                lease.lost().get(Math.min(WRITE_EVERY.toMillis(), Duration.between(now, end).toMillis()),
                        TimeUnit.MILLISECONDS);
                // Told: its callback may not have run yet on the thread that completed it.
                lostAt.compareAndSet(null, recorder.now());
            } catch (TimeoutException e) {
                // held on
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException e) {
                throw new IllegalStateException("lost() failed", e);
            }
        }
        Instant lost = lostAt.get();
        recorder.believed(new Belief(client, contention.resource(), lease.owner(), lease.fencingToken(), share, from,
                lost != null ? lost : recorder.now(), lost != null ? "lost (" + lease.lost().join().reason() + ")"
                        : "released"));
    }

    /** Each thread ends its lease (released, or its hold cut short) and stops asking. */
    void stop(Duration patience) throws InterruptedException, ExecutionException, TimeoutException {
        stopping = true;
        CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(patience.toMillis(), TimeUnit.MILLISECONDS);
    }

    private static void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stopping = true;
        threads.shutdownNow();
    }
}
