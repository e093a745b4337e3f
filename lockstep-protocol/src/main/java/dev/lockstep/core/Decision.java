package dev.lockstep.core;

import java.util.Objects;
import java.util.Optional;

/**
 * The arbiter's answer to one command: the verdict to reply with, and the lease to store if the
 * command changed it.
 *
 * @param verdict what the caller is told
 * @param write the resource's new lease when the command changed it; empty when nothing changed
 */
public record Decision(Verdict verdict, Optional<Lease> write) {

    public Decision {
        Objects.requireNonNull(verdict, "verdict");
        Objects.requireNonNull(write, "write");
    }

    static Decision unchanged(Verdict verdict) {
        return new Decision(verdict, Optional.empty());
    }

    static Decision changed(Verdict verdict, Lease lease) {
        return new Decision(verdict, Optional.of(lease));
    }
}
