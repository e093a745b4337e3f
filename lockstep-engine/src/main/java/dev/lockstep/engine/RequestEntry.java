package dev.lockstep.engine;

import dev.lockstep.protocol.Fingerprint;
import java.time.Instant;

/**
 * A request ID applied on a partition: the reply it got, byte for byte, so that a retry within the
 * request retention is answered with exactly the same bytes instead of being applied again.
 *
 * @param fingerprint what the command asked for; a retry must ask the same
 * @param offset where it was applied
 * @param appliedAt the log time it was answered at; remembered until {@code appliedAt + retention}
 * @param decidedAt the offset of the record that decided it: its own, or for an acquire that
 *     waited in the queue, the later record that granted it or showed its wait ended (a grant's
 *     fencing token is that record's)
 */
public record RequestEntry(String requestId, Fingerprint fingerprint, StoredReply reply, long offset, Instant appliedAt,
        long decidedAt) {

    public RequestEntry(String requestId, Fingerprint fingerprint, StoredReply reply, long offset, Instant appliedAt) {
        this(requestId, fingerprint, reply, offset, appliedAt, offset);
    }

    /** Whether it waited: answered by a later record than its own. */
    public boolean deferred() {
        return decidedAt != offset;
    }

    /** Whether a command arriving at log time {@code now} is still a retry of this one. */
    public boolean rememberedAt(Instant now, EngineSettings settings) {
        return now.isBefore(appliedAt.plus(settings.requestRetention()));
    }
}
