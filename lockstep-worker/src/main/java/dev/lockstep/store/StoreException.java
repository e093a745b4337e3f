package dev.lockstep.store;

/** The database could not complete a batch; nothing of the batch was committed. */
public class StoreException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
