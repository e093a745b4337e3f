package dev.lockstep.engine;

import dev.lockstep.core.Now;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Records of a partition that were never applied and are gone from the log (a database restored
 * past the log's retention). They may have granted leases nobody knows of; every such lease ends
 * within the longest allowed TTL of the last lost record, whose log time is at most that of the
 * first record still there. Until then, no lease is granted or renewed on the partition.
 *
 * @param lostFrom the first offset that was lost
 * @param lostTo the first offset still in the log
 * @param until when the quarantine ends; empty until the first record after the loss is read
 */
public record Quarantine(long lostFrom, long lostTo, Optional<Instant> until) {

    /**
     * The quarantine as it stands at {@code now}: its end fixed by the first record after the loss
     * (dated from the latest that record may be), gone once time has passed it.
     */
    Optional<Quarantine> at(Now now, Duration maxTtl) {
        Instant end = until.orElse(now.from().plus(maxTtl));
        return now.passed().isBefore(end) ? Optional.of(new Quarantine(lostFrom, lostTo, Optional.of(end)))
                : Optional.empty();
    }
}
