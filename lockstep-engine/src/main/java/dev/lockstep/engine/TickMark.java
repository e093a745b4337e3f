package dev.lockstep.engine;

import java.time.Instant;
import java.util.Objects;

/**
 * The last tick applied on a partition: its offset, which the worker's next tick names as its
 * {@code prev} to measure the time between them, and its log-append time, which bounds how far
 * that next tick may move time on (never faster than the broker's clock either).
 *
 * @param offset the tick's offset
 * @param logTime its log-append time, truncated to milliseconds
 */
public record TickMark(long offset, Instant logTime) {

    public TickMark {
        Objects.requireNonNull(logTime, "logTime");
        if (offset < 0) {
            throw new IllegalArgumentException("a tick's offset is not negative: " + offset);
        }
    }
}
