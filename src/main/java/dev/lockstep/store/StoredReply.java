package dev.lockstep.store;

import java.time.Instant;

/**
 * The reply a command got when it was applied, kept so that a retry or a redelivery is answered
 * with exactly the same bytes instead of being applied again.
 */
public record StoredReply(String requestId, String fingerprint, String reply, PartitionId partition, long offset,
        Instant appliedAt) {
}
