package dev.lockstep.http;

/** The HTTP server could not start (most often: the port is taken). */
public final class HttpStartException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public HttpStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
