package dev.lockstep.faults;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The broker down for longer than the worker's delivery timeout: acknowledgements fail, so the
 * batches that were applied (and, pipelined, the batches after them) are rewound and redone.
 */
class BrokerOutageIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void repliesThatWereNeverAcknowledgedAreSentAgain() throws Exception {
        Map<String, String> impatient = new HashMap<>(FaultTimeouts.GROUP);
        impatient.putAll(Map.of("request.timeout.ms", "1000", "delivery.timeout.ms", "2000"));
        ListAppender<ILoggingEvent> pipelineLog = new ListAppender<>();
        Logger pipeline = (Logger) LoggerFactory.getLogger("dev.lockstep.worker.PartitionPipeline");
        pipelineLog.start();
        pipeline.addAppender(pipelineLog);
        try {
            BrokerRestartIT.restartUnderLoad(env, "broker down past the worker's delivery timeout (acks fail)", "long",
                    Duration.ofSeconds(8), impatient);
        } finally {
            pipeline.detachAppender(pipelineLog);
        }
        assertThat(pipelineLog.list).as("batches whose replies were not acknowledged, redone")
                .anyMatch(e -> e.getFormattedMessage().contains("did not acknowledge"));
    }
}
