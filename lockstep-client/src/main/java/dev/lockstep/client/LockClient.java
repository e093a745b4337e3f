package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The asynchronous lockstep client: thread-safe, one per service instance.
 *
 * <p>Every method publishes one command and returns a future of its typed reply; a reply that
 * does not come within the request timeout completes the future with
 * {@link LockTimeoutException}. Replies come back on one partition of the reply topic that this
 * instance reads (see {@link LockClientSettings#replyPartition()}); the {@code request_id}
 * correlates them. A client whose reply reader fails fails every request at once, and says why
 * ({@link #failure()}). {@link #blocking()} offers the same calls as blocking methods.
 *
 * <pre>{@code
 * try (LockClient client = LockClient.start(LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9092")))) {
 *     Optional<HeldLease> lease = client.tryAcquire("payment:42", "worker-1", Duration.ofSeconds(30),
 *             Duration.ofSeconds(5)).join();
 *     if (lease.isPresent()) {
 *         try (HeldLease held = lease.get()) {        // renewed every 10 s until closed; close releases
 *             ledger.write(entry, held.fencingToken()); // the protected resource rejects stale tokens
 *         }
 *     }
 * }
 * }</pre>
 */
public final class LockClient implements AutoCloseable {

    private final LockClientSettings settings;
    private final CommandPublisher publisher;
    private final ReplyListener replies;
    private final ScheduledExecutorService scheduler;
    private final Exchanges exchanges;
    private final Delays delays;
    private final Clock clock;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final MonotonicClock monotonicClock;

    private LockClient(LockClientSettings settings, CommandPublisher publisher, ReplyListener replies,
            ScheduledExecutorService scheduler, Clock clock, MonotonicClock monotonicClock) {
        this.settings = settings;
        this.publisher = publisher;
        this.replies = replies;
        this.scheduler = scheduler;
        this.exchanges = new Exchanges(publisher, replies, scheduler);
        this.delays = new Delays(scheduler);
        this.clock = clock;
        this.monotonicClock = monotonicClock;
    }

    /**
     * Connects, positions the reply reader, and starts the client's two threads (reply reader and
     * renewal scheduler).
     *
     * @throws LockClientException when the broker or the reply topic cannot be reached in time
     */
    public static LockClient start(LockClientSettings settings) {
        return start(settings, MonotonicClock.system());
    }

    /** As {@link #start(LockClientSettings)}, measuring its leases' local validity on {@code monotonicClock}. */
    static LockClient start(LockClientSettings settings, MonotonicClock monotonicClock) {
        // Positioning on the reply partition asks the cluster twice; the producer is made meanwhile.
        CompletableFuture<ReplyListener> listening = CompletableFuture.supplyAsync(() -> ReplyListener.start(
                settings.kafka(), settings.topics().replies(), settings.replyPartition(), settings.requestTimeout()));
        CommandPublisher publisher = CommandPublisher.open(settings);
        ReplyListener replies;
        try {
            replies = listening.join();
        } catch (CompletionException e) {
            publisher.closeNow();
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
        return start(settings, publisher, replies, monotonicClock);
    }

    /** A client on this publisher and reply reader; starts its timer thread. */
    static LockClient start(LockClientSettings settings, CommandPublisher publisher, ReplyListener replies) {
        return start(settings, publisher, replies, MonotonicClock.system());
    }

    private static LockClient start(LockClientSettings settings, CommandPublisher publisher, ReplyListener replies,
            MonotonicClock monotonicClock) {
        return new LockClient(settings, publisher, replies, Delays.timer(), Clock.systemUTC(), monotonicClock);
    }

    public static String newRequestId() {
        return UUID.randomUUID().toString();
    }

    public LockClientSettings settings() {
        return settings;
    }

    /** The reply partition this instance reads. */
    public int replyPartition() {
        return replies.partition();
    }

    public CompletableFuture<Verdict> acquire(String resource, String owner, Duration ttl) {
        return send(new Command.Acquire(newRequestId(), resource, owner, ttl)).thenApply(ReplyMessage::reply);
    }

    /**
     * Acquires, waiting up to {@code wait} (at most {@link Limits#MAX_WAIT}) in the resource's queue
     * when another owner holds it: completes when the worker grants it (its turn came, decided in
     * the log: no polling) or answers {@code not_acquired} because the wait ended. Given up on
     * (its reply later than the wait and the request timeout), it is cancelled, as {@link #send} says.
     */
    public CompletableFuture<Verdict> acquire(String resource, String owner, Duration ttl, Duration wait) {
        return acquire(resource, owner, ttl, wait, Share.EXCLUSIVE);
    }

    /** Acquires {@code share} of the resource: the whole of it, or a shared permit (a semaphore's, a reader's). */
    public CompletableFuture<Verdict> acquire(String resource, String owner, Duration ttl, Duration wait, Share share) {
        return send(new Command.Acquire(newRequestId(), resource, owner, ttl, wait, share))
                .thenApply(ReplyMessage::reply);
    }

    public CompletableFuture<Verdict> renew(String resource, String owner, Duration ttl, OptionalLong token) {
        return send(new Command.Renew(newRequestId(), resource, owner, ttl, token)).thenApply(ReplyMessage::reply);
    }

    public CompletableFuture<Verdict> release(String resource, String owner, OptionalLong token) {
        return send(new Command.Release(newRequestId(), resource, owner, token)).thenApply(ReplyMessage::reply);
    }

    public CompletableFuture<Verdict> status(String resource) {
        return send(new Command.Status(newRequestId(), resource)).thenApply(ReplyMessage::reply);
    }

    /** The status, with where {@code owner}'s waiting acquire stands in the queue ({@link Verdict.Locked#position()}). */
    public CompletableFuture<Verdict> status(String resource, String owner) {
        return send(new Command.Status(newRequestId(), resource, Optional.of(owner))).thenApply(ReplyMessage::reply);
    }

    /**
     * Acquires a self-renewing lease, waiting in the resource's queue until {@code wait} has passed
     * (a wait longer than {@link Limits#MAX_WAIT} queues again when one ends). Empty when the lock
     * could not be had in time; fails with {@link InvalidCommandException} for a command that can
     * never succeed.
     */
    public CompletableFuture<Optional<HeldLease>> tryAcquire(String resource, String owner, Duration ttl,
            Duration wait) {
        return tryAcquire(resource, owner, ttl, wait, Share.EXCLUSIVE);
    }

    /**
     * As {@link #tryAcquire(String, String, Duration, Duration)}, for {@code share} of the resource.
     * Cancelling the returned future gives up: the acquire attempted then is cancelled (it leaves
     * the queue, or the lease it is granted is released right after).
     */
    public CompletableFuture<Optional<HeldLease>> tryAcquire(String resource, String owner, Duration ttl,
            Duration wait, Share share) {
        return new AcquireAttempts(this, resource, owner, ttl, share, clock.instant().plus(wait)).start();
    }

    /**
     * Runs {@code action} under an auto-renewed lease and releases it afterwards. If the lease is
     * lost meanwhile, the action's thread is interrupted and {@link LeaseLostException} is
     * thrown once the action returns; empty when the lock could not be had within {@code wait}.
     */
    public <T> Optional<T> withLock(String resource, String owner, Duration ttl, Duration wait, LockedAction<T> action)
            throws InterruptedException {
        return withLock(resource, owner, ttl, wait, Share.EXCLUSIVE, action);
    }

    /** As {@link #withLock(String, String, Duration, Duration, LockedAction)}, under {@code share} of the resource. */
    public <T> Optional<T> withLock(String resource, String owner, Duration ttl, Duration wait, Share share,
            LockedAction<T> action) throws InterruptedException {
        return LockedAction.run(this, resource, owner, ttl, wait, share, action);
    }

    /**
     * Publishes a command and waits {@link LockClientSettings#requestTimeout()} for its reply; an
     * acquire that waits in the queue, that much longer than its wait.
     */
    public CompletableFuture<ReplyMessage> send(Command command) {
        Duration waits = command instanceof Command.Acquire acquire ? acquire.maxWait() : Duration.ZERO;
        return send(command, settings.requestTimeout().plus(waits));
    }

    /**
     * Publishes a command and returns its reply. Sending the same command (same request ID)
     * again is safe and shares the reply; another command with a request ID still waiting fails
     * with {@link RequestIdInUseException}. A reply that answers another command than this one
     * fails with {@link ReplyMismatchException}.
     *
     * <p>An acquire whose reply does not come in time is cancelled: the caller gives up on it, and
     * a lease it may yet be granted must not block the resource for its TTL. The cancellation
     * ({@link #cancel}) follows it on its partition, so the worker applies it right after the
     * acquire, whenever that is; the future fails with {@link LockTimeoutException} once the broker
     * has the cancellation.
     */
    public CompletableFuture<ReplyMessage> send(Command command, Duration timeout) {
        return command instanceof Command.Acquire acquire ? exchanges.cancellingOnTimeout(acquire, timeout)
                : exchanges.exchange(command, timeout).reply();
    }

    /**
     * Cancels an acquire its caller gave up on: publishes a release that ends the lease this very
     * acquire granted, if it did and that lease still holds; a lease the owner held before it
     * stays. The reply says which: {@code released}, or {@code not_found}.
     */
    public CompletableFuture<Verdict> cancel(Command.Acquire acquire) {
        return send(Command.Release.cancelling(newRequestId(), acquire)).thenApply(ReplyMessage::reply);
    }

    /** The cancellation of {@code acquire}, published; its reply is left to come or not. */
    CompletableFuture<Void> cancelled(Command.Acquire acquire) {
        return cancelAcquire(acquire.requestId(), acquire.resource(), acquire.owner());
    }

    /** As {@link #send(Command, Duration)}, without cancelling an acquire that times out: a caller that retries it. */
    CompletableFuture<ReplyMessage> request(Command command, Duration timeout) {
        return exchanges.exchange(command, timeout).reply();
    }

    /**
     * Publishes a command record as given (the HTTP gateway's, built from a request the worker
     * validates) and returns its reply, as {@link #send(Command, Duration)} does, but without
     * cancelling anything: see {@link #cancelAcquire}.
     *
     * @param value a JSON object carrying {@code requestId} as its {@code request_id}
     * @param expected what the command asks, which its reply must answer
     */
    public CompletableFuture<ReplyMessage> send(String requestId, byte[] key, byte[] value, Expected expected,
            Duration timeout) {
        return exchanges.exchange(requestId, key, value, expected, timeout).reply();
    }

    /**
     * Cancels the acquire published with {@code requestId} (the gateway's, sent as a record):
     * completes once the broker has the cancellation. Its reply is not waited for, so it is
     * published even by a client that can no longer read replies.
     */
    public CompletableFuture<Void> cancelAcquire(String requestId, String resource, String owner) {
        return exchanges.cancelAcquire(requestId, resource, owner);
    }

    /** The same calls, blocking. */
    public BlockingLockClient blocking() {
        return new BlockingLockClient(this);
    }

    /** The reply reader away from its partition, or back where it was (see {@link ReplyListener#away}). */
    void repliesAway(boolean away) {
        replies.away(away);
    }

    /** See {@link Delays#after}. */
    CompletableFuture<Void> after(Duration delay) {
        return delays.after(delay);
    }

    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    /** The wall clock: for waits, and for when a loss was learnt ({@link LeaseLost#at()}). */
    Clock clock() {
        return clock;
    }

    /** The clock leases' local validity is measured on. */
    MonotonicClock monotonicClock() {
        return monotonicClock;
    }

    /** Requests still waiting for a reply. */
    int waiting() {
        return replies.waiting();
    }

    /** Whether this client can be used: it is not closed, and it can read replies ({@link #failure()}). */
    public boolean isOpen() {
        return !closed.get() && failure().isEmpty();
    }

    /**
     * Why this client fails every request: its reply reader met an error the Kafka consumer cannot
     * go on from (a batch it cannot read, an authorization withdrawn), so no reply can be read.
     * Every request waiting then failed with this exception, an acquire among them was cancelled,
     * and every later request fails with it at once, publishing nothing. Its held leases' renewals
     * fail, so each is lost (expired) at its local validity end. A failed client stays failed:
     * close it and start another. A closed client fails every request the same way. Empty while
     * replies can be read and the client is open.
     */
    public Optional<LockClientException> failure() {
        return replies.failure();
    }

    /**
     * Closes once; a later call returns at once (it may come from a continuation that this close
     * runs, or from the producer's thread this close waits for). Every request waiting for a reply
     * and every retry waiting for its turn fails first, on this thread, while the producer is still
     * open: an acquire among them is given up on, and its cancellation published. Held leases are
     * not released.
     */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        replies.stopWaiting();
        delays.close(replies.failure().orElseThrow());
        scheduler.shutdown();
        publisher.close();
        replies.close();
    }
}
