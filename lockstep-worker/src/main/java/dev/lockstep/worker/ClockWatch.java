package dev.lockstep.worker;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the operator of records whose log time was outside {@link LogTimes#BOUND} of the wall
 * clock ({@link LogTimes#takeOutside()}), naming the partition's leader: the broker whose clock
 * stamped them, or else this worker's clock is off. Leases end in log time, so a leader's clock
 * ahead ends them early for their holders' clients, and one behind ends them late. Each record is
 * counted in {@code lockstep.log.time.outside} by broker and direction; each partition and
 * direction is told in the log and in {@code /health/ready} at most once a minute, and the gauge
 * {@code lockstep.log.time.warnings} says how many such warnings the last ten minutes hold.
 *
 * <p>Runs on the ticker's thread: finding the leaders asks the cluster, within seconds.
 */
final class ClockWatch {

    /** The partition leaders of the command topic, by partition, named for an operator. */
    @FunctionalInterface
    interface Leaders {
        Map<Integer, String> now();
    }

    private static final Logger LOG = LoggerFactory.getLogger(ClockWatch.class);
    private static final Duration RETELL_AFTER = Duration.ofMinutes(1);
    private static final Duration ASK_TIMEOUT = Duration.ofSeconds(5);
    private static final String UNKNOWN = "unknown";

    private final LogTimes logTimes;
    private final Leaders leaders;
    private final String commandTopic;
    private final Clock clock;
    private final MeterRegistry registry;
    private final WorkerHealth health;
    private final RecentWarnings warnings;
    /** Ticker thread only: when each partition and direction was last told. */
    private final Map<String, Instant> told = new HashMap<>();

    /** @param clock the worker's clock: how long since a skew was told */
    ClockWatch(LogTimes logTimes, Leaders leaders, String commandTopic, Clock clock, MeterRegistry registry,
            WorkerHealth health) {
        this.logTimes = logTimes;
        this.leaders = leaders;
        this.commandTopic = commandTopic;
        this.clock = clock;
        this.registry = registry;
        this.health = health;
        this.warnings = new RecentWarnings(clock);
        Gauge.builder("lockstep.log.time.warnings", warnings, w -> w.texts().size())
                .description("Warnings of the last ten minutes about command records stamped more than 1 s off the "
                        + "worker's clock (0 when there are none)").register(registry);
    }

    /** The leaders of {@code topic}'s partitions as {@code admin} describes them; none when it cannot say in time. */
    static Leaders leaders(Admin admin, String topic) {
        return () -> {
            try {
                return admin.describeTopics(Set.of(topic), new DescribeTopicsOptions()
                                .timeoutMs((int) ASK_TIMEOUT.toMillis())).allTopicNames()
                        .get(ASK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).get(topic).partitions().stream()
                        .filter(p -> p.leader() != null)
                        .collect(Collectors.toMap(TopicPartitionInfo::partition, p -> name(p.leader())));
            } catch (ExecutionException | TimeoutException e) {
                LOG.debug("describing {} to name its leaders failed: {}", topic, e.getMessage());
                return Map.of();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Map.of();
            }
        };
    }

    /** Counts and tells of what {@link LogTimes} saw outside the bound since the last call. */
    void report() {
        List<LogTimes.Outside> seen = logTimes.takeOutside();
        if (!seen.isEmpty()) {
            Map<Integer, String> leaderOf = leaders.now();
            Instant now = clock.instant();
            for (LogTimes.Outside outside : seen) {
                String broker = leaderOf.getOrDefault(outside.partition(), UNKNOWN);
                String direction = outside.ahead() ? "ahead" : "behind";
                Counter.builder("lockstep.log.time.outside")
                        .description("Command records stamped more than 1 s ahead of the worker's clock, or behind "
                                + "the worker's send of them, by the partition leader that stamped them")
                        .tag("broker", broker).tag("direction", direction).register(registry)
                        .increment(outside.count());
                Instant last = told.get(outside.partition() + direction);
                if (last == null || !now.isBefore(last.plus(RETELL_AFTER))) {
                    told.put(outside.partition() + direction, now);
                    tell(outside, broker);
                }
            }
        }
        health.clockWarnings(warnings.texts());
    }

    private void tell(LogTimes.Outside outside, String broker) {
        double seconds = Math.abs(outside.by().toMillis()) / 1000.0;
        String what = outside.ahead()
                ? String.format("a record's log time (%s) was %.1f s ahead of this worker's clock", outside.logTime(),
                        seconds)
                : String.format("a record this worker sent was stamped %s, %.1f s before it sent it",
                        outside.logTime(), seconds);
        String text = String.format("%s-%d: %s (%d such records since the last look); its leader is broker %s: "
                + "that broker's clock, or this worker's, is off, and leases there end %s for their holders",
                commandTopic, outside.partition(), what, outside.count(), broker,
                outside.ahead() ? "early" : "late");
        LOG.warn(text);
        warnings.add(text);
    }

    private static String name(Node node) {
        return node.id() + " (" + node.host() + ":" + node.port() + ")";
    }
}
