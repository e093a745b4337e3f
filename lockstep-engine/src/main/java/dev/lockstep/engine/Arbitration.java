package dev.lockstep.engine;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Decision;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Now;

/**
 * The lock rules the machine runs: {@link #RULES} in the product; the history checker's tests plant
 * bugs in copies of it to prove they are caught.
 */
@FunctionalInterface
public interface Arbitration {

    Arbitration RULES = Arbiter::decide;

    Decision decide(Command command, Holders holders, Now now, long newToken);
}
