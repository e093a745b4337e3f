package dev.lockstep.history;

import java.time.Instant;

/**
 * One record of the command topic as the broker stored it: what the worker was given.
 *
 * @param logAppendTime the broker's timestamp (the command topic uses LogAppendTime)
 */
public record LoggedRecord(int partition, long offset, Instant logAppendTime, byte[] key, byte[] value) {

    String position() {
        return "p" + partition + "@" + offset;
    }
}
