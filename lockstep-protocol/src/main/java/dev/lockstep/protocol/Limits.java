package dev.lockstep.protocol;

import java.time.Duration;

/**
 * Bounds on what a command may contain. Checked when built, so a worker cannot start with a
 * configuration that would accept a zero TTL or an unbounded payload.
 *
 * @param maxTtl the longest lease a command may ask for
 * @param maxValueBytes larger record values are dead-lettered before any parsing
 */
public record Limits(Duration maxTtl, int maxValueBytes) {

    public static final int MAX_REQUEST_ID_CHARS = 128;
    public static final int MAX_RESOURCE_CHARS = 255;
    public static final int MAX_OWNER_CHARS = 255;
    /** The longest {@code value} a lease publishes (a leader's address): a reply's lock shows it, not its list of holders. */
    public static final int MAX_LEASE_VALUE_CHARS = 255;
    /**
     * The longest {@code kafka_correlationId} a command may carry: it is copied onto the reply, so
     * a longer one would make the reply as large as the producer wished. Spring's are 16 bytes.
     */
    public static final int MAX_CORRELATION_ID_BYTES = 1024;
    public static final Duration DEFAULT_MAX_TTL = Duration.ofSeconds(86_400);
    /** The longest an acquire may wait in its resource's queue ({@code wait_ms}). */
    public static final Duration MAX_WAIT = Duration.ofMinutes(5);
    /** How many acquires may wait for one resource; one more is answered {@code not_acquired} at once. */
    public static final int MAX_WAITERS = 1_000;
    public static final int DEFAULT_MAX_VALUE_BYTES = 16 * 1024;

    public Limits {
        if (maxTtl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("max TTL must be at least one second: " + maxTtl);
        }
        if (maxValueBytes < 1024) {
            throw new IllegalArgumentException("max value size must be at least 1024 bytes: " + maxValueBytes);
        }
    }

    public static Limits defaults() {
        return new Limits(DEFAULT_MAX_TTL, DEFAULT_MAX_VALUE_BYTES);
    }
}
