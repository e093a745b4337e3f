package dev.lockstep.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator of records whose log time was outside {@link LogTimes#BOUND} of the worker's
 * clock ({@link LogTimes#takeOutside()}), naming the partition's leader: the broker whose clock
 * stamped them, or else this worker's clock is off. Leases end in log time, so a leader's clock
 * ahead ends them early for their holders' clients, and one behind ends them late. A warning in
 * the log and in {@code /health/ready} (ten minutes), and the counter
 * {@code lockstep.log.time.outside} by broker and direction.
 *
 * <p>Runs on the ticker's thread: finding the leader may wait for the producer's metadata.
 */
final class ClockWatch {

    private static final Logger LOG = LoggerFactory.getLogger(ClockWatch.class);

    private final LogTimes logTimes;
    private final Producer<byte[], byte[]> producer;
    private final String commandTopic;
    private final MeterRegistry registry;
    private final WorkerHealth health;
    private final RecentWarnings warnings;

    ClockWatch(LogTimes logTimes, Producer<byte[], byte[]> producer, String commandTopic, Clock clock,
            MeterRegistry registry, WorkerHealth health) {
        this.logTimes = logTimes;
        this.producer = producer;
        this.commandTopic = commandTopic;
        this.registry = registry;
        this.health = health;
        this.warnings = new RecentWarnings(clock);
    }

    /** Tells of what {@link LogTimes} saw outside the bound since the last call. */
    void report() {
        List<LogTimes.Outside> seen = logTimes.takeOutside();
        if (seen.isEmpty()) {
            return;
        }
        for (LogTimes.Outside outside : seen) {
            String broker = leader(outside.partition());
            String direction = outside.by().isNegative() ? "behind" : "ahead";
            String text = String.format("%s-%d: a record's log time (%s) was %.1f s %s of this worker's clock; its "
                    + "leader is broker %s: that broker's clock, or this worker's, is off, and leases there end %s "
                    + "for their holders", commandTopic, outside.partition(), outside.logTime(),
                    Math.abs(outside.by().toMillis()) / 1000.0, direction, broker,
                    outside.by().isNegative() ? "late" : "early");
            LOG.warn(text);
            warnings.add(text);
            Counter.builder("lockstep.log.time.outside")
                    .description("Command records whose log time was more than 1 s ahead of the worker's clock, or "
                            + "behind the worker's send of it, by the partition leader that stamped them")
                    .tag("broker", broker).tag("direction", direction).register(registry).increment();
        }
        health.clockWarnings(warnings.texts());
    }

    private String leader(int partition) {
        try {
            return producer.partitionsFor(commandTopic).stream().filter(p -> p.partition() == partition).findFirst()
                    .map(PartitionInfo::leader).flatMap(Optional::ofNullable).map(ClockWatch::name)
                    .orElse("unknown (no leader)");
        } catch (KafkaException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private static String name(Node node) {
        return node.id() + " (" + node.host() + ":" + node.port() + ")";
    }
}
