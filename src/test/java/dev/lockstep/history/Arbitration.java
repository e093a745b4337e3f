package dev.lockstep.history;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Decision;
import dev.lockstep.core.Lease;
import java.time.Instant;
import java.util.Optional;

/** The decision function a sequential model runs; {@link #REAL} is the product's arbiter. */
@FunctionalInterface
interface Arbitration {

    Arbitration REAL = Arbiter::decide;

    Decision decide(Command command, Optional<Lease> latest, Instant now);
}
