package dev.lockstep.client;

import java.time.Duration;

/**
 * No reply came within the timeout. The command may still be applied; sending it again with the
 * same request ID is safe: the worker applies it once and answers again. An acquire is the
 * exception: {@link LockClient#send} cancels it ({@link #cancelled()}), and its stored reply, had
 * it been granted, names a lease released since.
 */
public class LockTimeoutException extends LockClientException {

    private static final long serialVersionUID = 1L;

    private final String requestId;

    private final boolean cancelled;

    public LockTimeoutException(String requestId, Duration timeout) {
        this(requestId, timeout, false);
    }

    /** @param cancelled whether the request was an acquire, cancelled since: a cancellation follows it */
    public LockTimeoutException(String requestId, Duration timeout, boolean cancelled) {
        super("no reply to request " + requestId + " within " + timeout.toMillis() + " ms"
                + (cancelled ? "; the acquire was cancelled (a lease it is granted is released right after)" : ""));
        this.requestId = requestId;
        this.cancelled = cancelled;
    }

    /** Whether the request was an acquire, cancelled since: nothing it may be granted stays held. */
    public boolean cancelled() {
        return cancelled;
    }

    public String requestId() {
        return requestId;
    }
}
