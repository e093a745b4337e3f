package dev.lockstep.faults;

import java.util.Map;

/**
 * Consumer-group timeouts for the fault suite: the worker's own defaults (6 s session, 1 s
 * heartbeats) with a 10 s poll interval instead of 30 s, so that a worker frozen past it comes
 * back as a zombie within a test's time. {@code FailoverIT} runs the shipped defaults alone.
 */
final class FaultTimeouts {

    /** The broker's smallest session timeout is 6 s (group.min.session.timeout.ms). */
    static final Map<String, String> GROUP = Map.of(
            "session.timeout.ms", "6000",
            "heartbeat.interval.ms", "1000",
            "max.poll.interval.ms", "10000");

    private FaultTimeouts() {
    }
}
