package dev.lockstep.worker;

/** The worker cannot start, or must stop; the message says what to do about it. */
public class WorkerStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why, for the exit code. */
    public enum Kind {
        /** A topic is missing, the cluster or database cannot be reached. */
        UNAVAILABLE,
        /** The command topic does not stamp LogAppendTime. */
        NOT_LOG_APPEND_TIME,
        /** This worker's settings differ from those recorded for the partitions. */
        SETTINGS_DIFFER
    }

    private final Kind kind;

    public WorkerStartException(String message) {
        this(Kind.UNAVAILABLE, message);
    }

    public WorkerStartException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public WorkerStartException(String message, Throwable cause) {
        super(message, cause);
        this.kind = Kind.UNAVAILABLE;
    }

    public Kind kind() {
        return kind;
    }
}
