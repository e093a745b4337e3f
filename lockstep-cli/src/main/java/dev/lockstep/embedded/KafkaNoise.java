package dev.lockstep.embedded;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import org.slf4j.Marker;

/**
 * Drops Kafka's warnings that tell a user nothing to act on: the embedded broker's about its own
 * ordinary start and stop (a warning at every start teaches users to read past warnings), and the
 * retries of the client that asks whether a cluster answers at all ({@link #PROBE_CLIENT_ID}),
 * whose failure is said in one line instead. Every other warning, the broker's and the clients',
 * still shows.
 */
public final class KafkaNoise extends TurboFilter {

    /** The {@code client.id} of the client that asks whether a cluster answers (dev.lockstep.cli.KafkaReach). */
    public static final String PROBE_CLIENT_ID = "lockstep-reach";

    /** A warning that a logger gives at every start or stop, by what it says after its prefix. */
    private record Noise(String logger, String says) {
    }

    private static final List<Noise> NOISE = List.of(
            // A single-node KRaft controller activating itself, at every start ("the metadata log appears to be
            // empty" on the first).
            new Noise("org.apache.kafka.controller.QuorumController", "Performing controller activation"),
            // The broker's shutdown closes its controller channel twice.
            new Noise("org.apache.kafka.clients.NetworkClient", "Attempting to close NetworkClient that has already been closed"));

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
        if (format == null || !level.isGreaterOrEqual(Level.WARN) || level.isGreaterOrEqual(Level.ERROR)) {
            return FilterReply.NEUTRAL;
        }
        if (format.contains("clientId=" + PROBE_CLIENT_ID + "]")) {
            return FilterReply.DENY;
        }
        for (Noise noise : NOISE) {
            if (logger.getName().equals(noise.logger()) && format.contains(noise.says())) {
                return FilterReply.DENY;
            }
        }
        return FilterReply.NEUTRAL;
    }
}
