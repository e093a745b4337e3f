package dev.lockstep.client;

/** A lock request that could not be completed: not published, not answered, or refused as invalid. */
public class LockClientException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public LockClientException(String message) {
        super(message);
    }

    public LockClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
