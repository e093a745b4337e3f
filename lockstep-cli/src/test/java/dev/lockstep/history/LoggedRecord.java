package dev.lockstep.history;

import java.time.Instant;
import java.util.OptionalLong;

/**
 * One record of the command topic as the broker stored it: what the worker was given.
 *
 * @param logAppendTime the broker's timestamp (the command topic uses LogAppendTime)
 * @param takenBound for a growth's taken, the token bound it names: its partition's tokens are
 *     above it from there on
 */
public record LoggedRecord(int partition, long offset, Instant logAppendTime, byte[] key, byte[] value,
        OptionalLong takenBound) {

    /** A record that is not a growth's taken. */
    public LoggedRecord(int partition, long offset, Instant logAppendTime, byte[] key, byte[] value) {
        this(partition, offset, logAppendTime, key, value, OptionalLong.empty());
    }

    String position() {
        return "p" + partition + "@" + offset;
    }
}
