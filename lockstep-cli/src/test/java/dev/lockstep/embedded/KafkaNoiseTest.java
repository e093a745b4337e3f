package dev.lockstep.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import org.junit.jupiter.api.Test;

class KafkaNoiseTest {

    private final LoggerContext context = new LoggerContext();
    private final KafkaNoise filter = new KafkaNoise();

    private FilterReply decide(String logger, Level level, String format) {
        Logger named = context.getLogger(logger);
        return filter.decide(null, named, level, format, null, null);
    }

    @Test
    void theBrokersOwnStartAndStopWarningsAreDropped() {
        assertThat(decide("org.apache.kafka.controller.QuorumController", Level.WARN,
                "[QuorumController id=1] Performing controller activation. The metadata log appears to be empty."))
                .isEqualTo(FilterReply.DENY);
        assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN, "[NodeToControllerChannelManager id=1 "
                + "name=registration] Attempting to close NetworkClient that has already been closed."))
                .isEqualTo(FilterReply.DENY);
    }

    @Test
    void theReachProbesRetriesAreDroppedButNobodyElses() {
        assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN, "[AdminClient clientId="
                + KafkaNoise.PROBE_CLIENT_ID + "] Connection to node -1 (/127.0.0.1:1) could not be established."))
                .isEqualTo(FilterReply.DENY);
        assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN,
                "[Producer clientId=producer-1] Connection to node -1 (/127.0.0.1:1) could not be established."))
                .isEqualTo(FilterReply.NEUTRAL);
    }

    @Test
    void errorsAndFinerLevelsAreNeverDropped() {
        assertThat(decide("org.apache.kafka.controller.QuorumController", Level.ERROR,
                "[QuorumController id=1] Performing controller activation")).isEqualTo(FilterReply.NEUTRAL);
        assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.DEBUG, "[AdminClient clientId="
                + KafkaNoise.PROBE_CLIENT_ID + "] anything")).isEqualTo(FilterReply.NEUTRAL);
        assertThat(decide("org.apache.kafka.clients.NetworkClient", Level.WARN, null)).isEqualTo(FilterReply.NEUTRAL);
    }
}
