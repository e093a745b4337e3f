package dev.lockstep.metrics;

import dev.lockstep.core.CommandType;
import dev.lockstep.engine.Outbound;
import dev.lockstep.protocol.LeaseEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * The worker's own meters (docs/operations.md lists each): what it decided, how long commands and
 * transactions took, what it could not deliver. Every label is a bounded set (command type,
 * outcome, dead-letter cause): never a resource, an owner or a request ID, whose number has no bound.
 *
 * <p>Counted when the broker acknowledged the publication, so that the counters say what callers
 * were told; a batch redone after a failed acknowledgement counts again what it publishes again.
 */
public final class WorkerMetrics {

    private static final String UNKNOWN = "unknown";

    private final MeterRegistry registry;
    private final Clock clock;
    private final Timer commandDuration;
    private final Timer transactionDuration;
    private final DistributionSummary batchSize;
    private final Counter expired;
    private final Counter publishFailures;

    /** @param clock the worker's clock: a command's duration is from its log-append time to its acknowledgement */
    public WorkerMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.commandDuration = Timer.builder("lockstep.command.duration")
                .description("From a command's log-append time to its reply's acknowledgement by the broker")
                .publishPercentileHistogram().register(registry);
        this.transactionDuration = Timer.builder("lockstep.db.transaction.duration")
                .description("One partition batch's database transaction, commit included")
                .publishPercentileHistogram().register(registry);
        this.batchSize = DistributionSummary.builder("lockstep.batch.size")
                .description("Command records applied in one partition batch").publishPercentileHistogram()
                .register(registry);
        this.expired = Counter.builder("lockstep.lease.expired").description("Leases shown expired (log time)")
                .register(registry);
        this.publishFailures = Counter.builder("lockstep.reply.publish.failures")
                .description("Replies, events or dead letters the broker did not acknowledge (the batch is redone)")
                .register(registry);
        // Present at zero from the start, so that a rate or an alert has a series before the first one.
        for (Outbound.Cause cause : Outbound.Cause.values()) {
            registry.counter("lockstep.dead.letters", "reason", cause.label());
        }
        for (CommandType type : CommandType.values()) {
            registry.counter("lockstep.duplicate.requests", "type", type.wireName());
        }
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** A batch's transaction committed. */
    public void batch(int records, Duration transaction) {
        batchSize.record(records);
        transactionDuration.record(transaction);
    }

    /** The broker acknowledged {@code out}. */
    public void published(Outbound out) {
        if (out instanceof Outbound.ReplyRecord reply) {
            if (reply.answer() instanceof Outbound.Answer.Decided decided) {
                registry.counter("lockstep.commands", "type", type(decided.type()), "outcome",
                        decided.outcome().wireName()).increment();
            } else {
                registry.counter("lockstep.duplicate.requests", "type",
                        type(((Outbound.Answer.Repeated) reply.answer()).type())).increment();
            }
            // The broker's clock and the worker's may differ by a little: never a negative duration.
            reply.source().logAppendTime().ifPresent(appended -> {
                Duration took = Duration.between(appended, clock.instant());
                commandDuration.record(took.isNegative() ? Duration.ZERO : took);
            });
        } else if (out instanceof Outbound.Event event) {
            if (event.entry().kind() == LeaseEvent.Kind.EXPIRED) {
                expired.increment();
            }
        } else if (out instanceof Outbound.DeadLetter dead) {
            registry.counter("lockstep.dead.letters", "reason", dead.cause().label()).increment();
        }
    }

    /** The broker refused or timed out a publication. */
    public void publishFailed() {
        publishFailures.increment();
    }

    private static String type(Optional<CommandType> type) {
        return type.map(CommandType::wireName).orElse(UNKNOWN);
    }
}
