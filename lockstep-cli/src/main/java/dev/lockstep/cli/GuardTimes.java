package dev.lockstep.cli;

import dev.lockstep.client.LockClientSettings;
import java.time.Duration;

/**
 * The times of a guarded job under a lease of a given TTL.
 *
 * @param grace between SIGTERM and SIGKILL: as asked ({@code --grace}), but at most half of what
 *     is left of the local validity after the second renewal was due. The SIGKILL comes at the
 *     validity end, so the SIGTERM comes the grace before it: a longer one would stop a job whose
 *     second renewal is merely slow
 * @param toStart how much of the lease's local validity must be left for the job to start: its
 *     SIGTERM no sooner than the next renewal is due. A lease dated conservatively (a grant after a
 *     wait, whose acquire was slow to publish) has less; its first renewal, sent at once, gives more
 */
record GuardTimes(Duration grace, Duration toStart) {

    static GuardTimes of(Duration askedGrace, Duration ttl, LockClientSettings settings) {
        double spare = (1 - settings.safetyMarginFraction() - 2 * settings.renewFraction()) / 2;
        Duration most = Duration.ofNanos(Math.max(0, (long) (ttl.toNanos() * spare)));
        Duration grace = askedGrace.compareTo(most) <= 0 ? askedGrace : most;
        return new GuardTimes(grace, grace.plusNanos((long) (ttl.toNanos() * settings.renewFraction())));
    }
}
