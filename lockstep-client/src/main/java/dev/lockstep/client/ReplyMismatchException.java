package dev.lockstep.client;

/**
 * A reply carried the request's ID but answered another command (another type, resource, owner
 * or token): never taken as the caller's answer. It means the request ID was used for two
 * commands (a reused ID or {@code Idempotency-Key}), or a record on the reply topic was forged.
 */
public class ReplyMismatchException extends LockClientException {

    private static final long serialVersionUID = 1L;

    public ReplyMismatchException(String message) {
        super(message);
    }
}
