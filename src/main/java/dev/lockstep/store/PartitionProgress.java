package dev.lockstep.store;

import java.time.Instant;

/**
 * How far a partition has been applied.
 *
 * @param nextOffset records below this offset were applied already; their replies are stored
 * @param lastNow the last instant used as "now" on the partition
 */
public record PartitionProgress(long nextOffset, Instant lastNow) {
}
