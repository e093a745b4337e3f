package dev.lockstep.faults;

import java.util.Map;

/** Consumer-group timeouts short enough that a dead or frozen worker loses its partitions within seconds. */
final class FaultTimeouts {

    /** The broker's smallest session timeout is 6 s (group.min.session.timeout.ms). */
    static final Map<String, String> GROUP = Map.of(
            "session.timeout.ms", "6000",
            "heartbeat.interval.ms", "1000",
            "max.poll.interval.ms", "10000");

    private FaultTimeouts() {
    }
}
