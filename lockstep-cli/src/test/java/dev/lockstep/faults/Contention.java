package dev.lockstep.faults;

import java.time.Duration;
import java.util.Map;

/**
 * What one client loop of a belief run does, whatever its language: it asks for {@code resource}
 * (the whole of it, or with {@code limit} one of its shared permits), waits up to {@code maxWait} in
 * its queue, holds each lease for a time drawn between {@code minHold} and {@code maxHold} (writing
 * to the fenced store with its token as it goes, unless shared), releases it, and pauses up to
 * {@code maxIdle} before asking again.
 *
 * @param limit 0: the whole resource
 * @param behindLink whether it reaches the broker through the {@link dev.lockstep.testkit.BrokerLink}
 */
record Contention(String resource, Duration ttl, Duration maxWait, int limit, Duration minHold, Duration maxHold,
        Duration maxIdle, boolean behindLink) {

    static Contention exclusive(String resource, Duration ttl, Duration maxWait, Duration minHold, Duration maxHold) {
        return new Contention(resource, ttl, maxWait, 0, minHold, maxHold, Duration.ofMillis(300), false);
    }

    Contention shared(int permits) {
        return new Contention(resource, ttl, maxWait, permits, minHold, maxHold, maxIdle, behindLink);
    }

    Contention behindTheLink() {
        return new Contention(resource, ttl, maxWait, limit, minHold, maxHold, maxIdle, true);
    }

    Contention holding(Duration shortest, Duration longest) {
        return new Contention(resource, ttl, maxWait, limit, shortest, longest, maxIdle, behindLink);
    }

    Contention withTtl(Duration newTtl) {
        return new Contention(resource, newTtl, maxWait, limit, minHold, maxHold, maxIdle, behindLink);
    }

    Contention idling(Duration longest) {
        return new Contention(resource, ttl, maxWait, limit, minHold, maxHold, longest, behindLink);
    }

    /** For a Python or Node loop: {@code BELIEF_*} (clients/python/tests/belief_loop.py says what each is). */
    Map<String, String> environment(String client, String owner) {
        return Map.of("BELIEF_CLIENT", client, "BELIEF_OWNER", owner, "BELIEF_RESOURCE", resource,
                "BELIEF_TTL", Long.toString(ttl.toSeconds()), "BELIEF_WAIT", Long.toString(maxWait.toSeconds()),
                "BELIEF_LIMIT", Integer.toString(limit), "BELIEF_HOLD_MS", minHold.toMillis() + "," + maxHold.toMillis(),
                "BELIEF_IDLE_MS", Long.toString(maxIdle.toMillis()));
    }
}
