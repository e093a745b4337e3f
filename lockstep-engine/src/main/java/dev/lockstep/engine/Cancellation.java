package dev.lockstep.engine;

import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A release that cancels an acquire its caller gave up on ({@code cancels}: the acquire's request
 * ID). Sent right after the acquire, on its partition, it is applied after it: it releases the
 * lease that very acquire granted, if that lease still holds, and nothing else. Which lease that
 * is follows from the log: the acquire's request entry names the record that decided it, a grant
 * by the record at offset {@code o} has token {@code tokenAt(o)}, and the acquire's stored reply
 * says whether it was granted that lease.
 */
final class Cancellation {

    private Cancellation() {
    }

    /**
     * The live lease the cancelled acquire granted. None when that acquire was refused (the record
     * that refused it may have granted a waiter, with that record's token: not the acquire's
     * grant), extended a lease its owner held before (an older token, which stays), never reached
     * the log, or its grant ended already.
     */
    static Optional<Lease> grant(Command.Release cancel, Instant now, PartitionState state, EngineSettings settings) {
        OptionalLong token = grantedToken(cancel, now, state, settings);
        if (token.isEmpty()) {
            return Optional.empty();
        }
        return state.holders(cancel.resource()).liveAt(now).stream()
                .filter(lease -> lease.fencingToken() == token.getAsLong()).findFirst();
    }

    /**
     * A cancellation as the release the rules decide: with the token of the grant it cancels, so
     * its owner is checked as for any release. Another command as it is. Only called for a
     * cancellation whose {@link #grant} holds.
     */
    static Command asRelease(Command command, PartitionState state, Instant now, EngineSettings settings) {
        if (command instanceof Command.Release release && release.cancels().isPresent()) {
            long token = grantedToken(release, now, state, settings).orElseThrow();
            return new Command.Release(release.requestId(), release.resource(), release.owner(), OptionalLong.of(token),
                    release.cancels());
        }
        return command;
    }

    /**
     * The token of the new lease the cancelled acquire was answered with, if it was granted one of
     * the cancellation's resource (one record may grant several resources, each with its token).
     */
    private static OptionalLong grantedToken(Command.Release cancel, Instant now, PartitionState state,
            EngineSettings settings) {
        Optional<RequestEntry> acquire = state.request(cancel.cancels().orElseThrow())
                .filter(entry -> entry.rememberedAt(now, settings));
        if (acquire.isEmpty()) {
            return OptionalLong.empty();
        }
        long token = state.position().tokenAt(acquire.get().decidedAt());
        boolean granted = ReplyDecoder.decode(acquire.get().reply().bytes())
                .filter(reply -> reply.reply() instanceof Verdict.Acquired acquired
                        && acquired.lease().fencingToken() == token
                        && acquired.lease().resource().equals(cancel.resource()))
                .isPresent();
        return granted ? OptionalLong.of(token) : OptionalLong.empty();
    }
}
