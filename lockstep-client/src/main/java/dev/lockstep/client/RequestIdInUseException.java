package dev.lockstep.client;

/**
 * A command was sent with the request ID of another command still waiting for its reply. The two
 * would share one reply, so the second fails at once and is not published. The same command sent
 * again with its ID (a retry) is not this: it shares the first one's reply.
 */
public class RequestIdInUseException extends LockClientException {

    private static final long serialVersionUID = 1L;

    private final String requestId;

    public RequestIdInUseException(String requestId) {
        super("request ID " + requestId + " is waiting for the reply to another command; use a new request ID");
        this.requestId = requestId;
    }

    public String requestId() {
        return requestId;
    }
}
