package dev.lockstep.cli;

import dev.lockstep.client.MonotonicInstant;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * When {@code exec}'s guard signals the job, decided from what the exec process told it and the
 * monotonic clock's reading, which it is given: no clock read, no I/O.
 *
 * <p>While the lease holds, the job gets SIGTERM {@code grace} before the lease's local validity
 * end and SIGKILL at that end, unless a renewal moved the end on first. A lease known lost gets
 * SIGTERM at once and SIGKILL {@code grace} later, never after the validity end. An exec that is
 * gone (its connection closed) gets its job SIGKILLed at once. Once the job is being stopped,
 * nothing moves its SIGKILL later.
 *
 * @param grace between SIGTERM and SIGKILL
 */
record GuardPlan(Duration grace, Phase phase) {

    /** Why the guard stopped the job. */
    enum Cause {
        /** The lease's local validity was about to end without a renewal. */
        DEADLINE,
        /** The exec process learnt that its lease was lost. */
        LOST,
        /** The exec process is gone. */
        ABANDONED
    }

    enum JobSignal {
        TERM,
        KILL
    }

    sealed interface Phase {
    }

    /** The lease holds until {@code validUntil}. */
    record Holding(MonotonicInstant validUntil) implements Phase {
    }

    /** SIGTERM sent; SIGKILL due at {@code killAt}. */
    record Stopping(Cause cause, MonotonicInstant killAt) implements Phase {
    }

    /** SIGKILL sent. */
    record Killed(Cause cause) implements Phase {
    }

    /** What is due at a moment: the signals to send now, and the plan after. */
    record Step(GuardPlan plan, List<JobSignal> signals) {
    }

    static GuardPlan holding(MonotonicInstant validUntil, Duration grace) {
        return new GuardPlan(grace, new Holding(validUntil));
    }

    /** Whether the job may still be started at {@code now}: its SIGTERM is not due yet. */
    boolean canStartAt(MonotonicInstant now) {
        return phase instanceof Holding holding && now.isBefore(terminateAt(holding));
    }

    /** A renewal answered: the validity ends later. */
    GuardPlan renewed(MonotonicInstant validUntil) {
        if (phase instanceof Holding holding && holding.validUntil().isBefore(validUntil)) {
            return new GuardPlan(grace, new Holding(validUntil));
        }
        return this;
    }

    /** The lease is known lost at {@code now}. */
    Step lost(MonotonicInstant now) {
        MonotonicInstant graceEnd = now.plus(grace);
        if (phase instanceof Holding holding) {
            return new Step(new GuardPlan(grace, new Stopping(Cause.LOST, earlier(graceEnd, holding.validUntil()))),
                    List.of(JobSignal.TERM));
        }
        if (phase instanceof Stopping stopping) {
            return new Step(new GuardPlan(grace, new Stopping(stopping.cause(), earlier(graceEnd, stopping.killAt()))),
                    List.of());
        }
        return new Step(this, List.of());
    }

    /** The exec process is gone. */
    Step abandoned() {
        if (phase instanceof Killed) {
            return new Step(this, List.of());
        }
        return new Step(new GuardPlan(grace, new Killed(Cause.ABANDONED)), List.of(JobSignal.KILL));
    }

    /** The signals due at {@code now}. */
    Step at(MonotonicInstant now) {
        if (phase instanceof Holding holding && !now.isBefore(terminateAt(holding))) {
            Step terminated = new Step(new GuardPlan(grace, new Stopping(Cause.DEADLINE, holding.validUntil())),
                    List.of(JobSignal.TERM));
            Step after = terminated.plan().at(now);
            return after.signals().isEmpty() ? terminated
                    : new Step(after.plan(), List.of(JobSignal.TERM, JobSignal.KILL));
        }
        if (phase instanceof Stopping stopping && !now.isBefore(stopping.killAt())) {
            return new Step(new GuardPlan(grace, new Killed(stopping.cause())), List.of(JobSignal.KILL));
        }
        return new Step(this, List.of());
    }

    /** When a signal is next due, if one is. */
    Optional<MonotonicInstant> nextDue() {
        if (phase instanceof Holding holding) {
            return Optional.of(terminateAt(holding));
        }
        if (phase instanceof Stopping stopping) {
            return Optional.of(stopping.killAt());
        }
        return Optional.empty();
    }

    /** Why the job is being stopped, once it is. */
    Optional<Cause> cause() {
        if (phase instanceof Stopping stopping) {
            return Optional.of(stopping.cause());
        }
        if (phase instanceof Killed killed) {
            return Optional.of(killed.cause());
        }
        return Optional.empty();
    }

    private MonotonicInstant terminateAt(Holding holding) {
        return holding.validUntil().plus(grace.negated());
    }

    private static MonotonicInstant earlier(MonotonicInstant a, MonotonicInstant b) {
        return a.isBefore(b) ? a : b;
    }
}
