package dev.lockstep.worker;

/** The worker cannot start; the message says what to do about it. */
public class WorkerStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public WorkerStartException(String message) {
        super(message);
    }

    public WorkerStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
