package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Blocking views of {@link LockClient}'s calls; each waits for the future the async call returns. */
public final class BlockingLockClient {

    private final LockClient client;

    BlockingLockClient(LockClient client) {
        this.client = client;
    }

    public Verdict acquire(String resource, String owner, Duration ttl) {
        return join(client.acquire(resource, owner, ttl));
    }

    /** {@link LockClient#acquire(String, String, Duration, Duration)}, blocking until granted or the wait ends. */
    public Verdict acquire(String resource, String owner, Duration ttl, Duration wait) {
        return join(client.acquire(resource, owner, ttl, wait));
    }

    /** {@link LockClient#acquire(String, String, Duration, Duration, Share)}, blocking. */
    public Verdict acquire(String resource, String owner, Duration ttl, Duration wait, Share share) {
        return join(client.acquire(resource, owner, ttl, wait, share));
    }

    public Verdict renew(String resource, String owner, Duration ttl, OptionalLong token) {
        return join(client.renew(resource, owner, ttl, token));
    }

    public Verdict release(String resource, String owner, OptionalLong token) {
        return join(client.release(resource, owner, token));
    }

    public Verdict status(String resource) {
        return join(client.status(resource));
    }

    public Verdict status(String resource, String owner) {
        return join(client.status(resource, owner));
    }

    public Optional<HeldLease> tryAcquire(String resource, String owner, Duration ttl, Duration wait) {
        return join(client.tryAcquire(resource, owner, ttl, wait));
    }

    public Optional<HeldLease> tryAcquire(String resource, String owner, Duration ttl, Duration wait, Share share) {
        return join(client.tryAcquire(resource, owner, ttl, wait, share));
    }

    public ReplyMessage send(Command command) {
        return join(client.send(command));
    }

    /** @throws LockClientException (or a subclass) as the future failed, unwrapped */
    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }
}
