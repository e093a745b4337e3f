package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A release that cancels an acquire its caller gave up on ({@code cancels}: the acquire's request
 * ID). Sent right after the acquire, on its partition, it is applied after it: it releases the
 * lease that very acquire granted, if that lease still holds, and nothing else. Which lease that
 * is follows from the log: a grant by the record at offset {@code o} has token
 * {@code tokenAt(o)}, and the acquire's request entry names its offset.
 */
final class Cancellation {

    private Cancellation() {
    }

    /**
     * Whether a live lease of the resource is the one the cancelled acquire granted. Not when that
     * acquire was refused, extended a lease its owner held before (an older token, which stays),
     * never reached the log, or its grant ended already.
     */
    static boolean grantHolds(Command.Release cancel, Instant now, PartitionState state, EngineSettings settings) {
        Optional<RequestEntry> acquire = state.request(cancel.cancels().orElseThrow())
                .filter(entry -> entry.rememberedAt(now, settings));
        return acquire.isPresent() && state.holders(cancel.resource()).liveAt(now).stream()
                .anyMatch(lease -> lease.fencingToken() == state.position().tokenAt(acquire.get().decidedAt()));
    }

    /**
     * A cancellation as the release the rules decide: with the token of the grant it cancels, so
     * its owner is checked as for any release. Another command as it is.
     */
    static Command asRelease(Command command, PartitionState state) {
        if (command instanceof Command.Release release && release.cancels().isPresent()) {
            long token = state.request(release.cancels().get()).map(e -> state.position().tokenAt(e.decidedAt()))
                    .orElseThrow();
            return new Command.Release(release.requestId(), release.resource(), release.owner(), OptionalLong.of(token),
                    release.cancels());
        }
        return command;
    }
}
