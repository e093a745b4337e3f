package dev.lockstep.client;

import java.time.Duration;

/**
 * No reply came within the timeout. The command may still be applied; sending it again with the
 * same request ID is safe: the worker applies it once and answers again.
 */
public class LockTimeoutException extends LockClientException {

    private static final long serialVersionUID = 1L;

    private final String requestId;

    public LockTimeoutException(String requestId, Duration timeout) {
        super("no reply to request " + requestId + " within " + timeout.toMillis() + " ms");
        this.requestId = requestId;
    }

    public String requestId() {
        return requestId;
    }
}
