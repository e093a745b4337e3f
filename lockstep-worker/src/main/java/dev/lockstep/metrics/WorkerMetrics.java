package dev.lockstep.metrics;

import dev.lockstep.core.CommandType;
import dev.lockstep.engine.EventEntry;
import dev.lockstep.engine.Outbound;
import dev.lockstep.protocol.LeaseEvent;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
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

    /** The stages of a command through the worker, in order: names a benchmark's trace reads them by. */
    public static final String FETCH_DELAY = "lockstep.command.fetch.delay";
    public static final String QUEUE_DURATION = "lockstep.batch.queue.duration";
    public static final String DECODE_DURATION = "lockstep.batch.decode.duration";
    public static final String TRANSACTION_DURATION = "lockstep.db.transaction.duration";
    public static final String ACKNOWLEDGE_DURATION = "lockstep.reply.acknowledge.duration";

    private static final String UNKNOWN = "unknown";
    private static final String LEFT = "lockstep.waiters.left";
    private static final String GRANTED = "granted";

    private final MeterRegistry registry;
    private final Clock clock;
    private final Timer commandDuration;
    private final Timer transactionDuration;
    private final Timer fetchDelay;
    private final Timer queueDuration;
    private final Timer decodeDuration;
    private final Timer acknowledgeDuration;
    private final DistributionSummary batchSize;
    private final Counter expired;
    private final Counter vacancies;
    private final Counter publishFailures;
    private final Counter ticks;
    private final Counter handOvers;
    private final Counter joined;
    private final Counter recordsLost;
    private final Timer waited;

    /** @param clock the worker's clock: a command's duration is from its log-append time to its acknowledgement */
    public WorkerMetrics(MeterRegistry registry, Clock clock) {
        this.registry = registry;
        this.clock = clock;
        this.commandDuration = Timer.builder("lockstep.command.duration")
                .description("From a command's log-append time to its reply's acknowledgement by the broker")
                .publishPercentileHistogram().register(registry);
        this.transactionDuration = Timer.builder(TRANSACTION_DURATION)
                .description("One partition batch's database transaction, commit included")
                .publishPercentileHistogram().register(registry);
        this.fetchDelay = Timer.builder(FETCH_DELAY)
                .description("From a command's log-append time to the worker's poll that brought it (broker, consumer)")
                .publishPercentileHistogram().register(registry);
        this.queueDuration = Timer.builder(QUEUE_DURATION)
                .description("From the poll that brought a batch to the batch starting to apply (partition busy, no free apply thread)")
                .publishPercentileHistogram().register(registry);
        this.decodeDuration = Timer.builder(DECODE_DURATION)
                .description("Decoding and routing one partition batch's records, inside its transaction")
                .publishPercentileHistogram().register(registry);
        this.acknowledgeDuration = Timer.builder(ACKNOWLEDGE_DURATION)
                .description("From a batch's replies, events and dead letters handed to the producer to the broker's acknowledgement of all")
                .publishPercentileHistogram().register(registry);
        this.batchSize = DistributionSummary.builder("lockstep.batch.size")
                .description("Command records applied in one partition batch").publishPercentileHistogram()
                .register(registry);
        this.expired = Counter.builder("lockstep.lease.expired").description("Leases shown expired (log time)")
                .register(registry);
        this.vacancies = Counter.builder("lockstep.vacancies")
                .description("Leases with a value (leaders') that ended with nobody holding their resource after them")
                .register(registry);
        this.publishFailures = Counter.builder("lockstep.reply.publish.failures")
                .description("Replies, events or dead letters the broker did not acknowledge (the batch is redone)")
                .register(registry);
        this.ticks = Counter.builder("lockstep.ticks")
                .description("Ticks appended to command partitions, to show leases that ended with no record after them")
                .register(registry);
        this.handOvers = Counter.builder("lockstep.hand.overs")
                .description("Hand-overs appended to command partitions, each to grant a resource's next waiter by a "
                        + "record of its own")
                .register(registry);
        this.recordsLost = Counter.builder("lockstep.records.lost")
                .description("Command records gone from the log (retention) before this worker applied them; their "
                        + "partitions were quarantined").register(registry);
        this.joined = Counter.builder("lockstep.waiters.joined").description("Acquires that joined a wait queue")
                .register(registry);
        this.waited = Timer.builder("lockstep.waiters.wait.duration")
                .description("How long, in log time, a waiter waited before the resource came to it")
                .publishPercentileHistogram().register(registry);
        for (String reason : List.of(GRANTED, LeaseEvent.Kind.WAIT_EXPIRED.wireName(), LeaseEvent.Kind.CANCELLED.wireName())) {
            registry.counter(LEFT, "reason", reason);
        }
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

    /** A poll brought a command {@code sinceAppend} after its log-append time (the broker's clock). */
    public void fetched(Duration sinceAppend) {
        fetchDelay.record(sinceAppend.isNegative() ? Duration.ZERO : sinceAppend);
    }

    /** A batch began applying {@code sincePoll} after the poll that brought it. */
    public void queued(Duration sincePoll) {
        queueDuration.record(sincePoll);
    }

    /** A batch's records were decoded and routed. */
    public void decoded(Duration took) {
        decodeDuration.record(took);
    }

    /** The broker acknowledged everything a batch published, {@code sinceSent} after it was handed over. */
    public void acknowledged(Duration sinceSent) {
        acknowledgeDuration.record(sinceSent);
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
            waiting(event.entry());
            if (event.entry().kind() == LeaseEvent.Kind.EXPIRED) {
                expired.increment();
            } else if (event.entry().kind() == LeaseEvent.Kind.VACANT) {
                vacancies.increment();
            }
        } else if (out instanceof Outbound.DeadLetter dead) {
            registry.counter("lockstep.dead.letters", "reason", dead.cause().label()).increment();
        } else if (out instanceof Outbound.HandOver) {
            handOvers.increment();
        }
    }

    /** The broker acknowledged a hand-over the ticker appended again (the first was lost). */
    public void handedOverAgain() {
        handOvers.increment();
    }

    /** A partition was positioned past {@code count} records the log no longer has, none of them applied. */
    public void recordsLost(long count) {
        recordsLost.increment(count);
    }

    /** The broker acknowledged a tick. */
    public void ticked() {
        ticks.increment();
    }

    /** The queues' share of an event: joined, and left (granted, with how long it waited; its wait ended; cancelled). */
    private void waiting(EventEntry entry) {
        switch (entry.kind()) {
            case QUEUED -> joined.increment();
            case WAIT_EXPIRED, CANCELLED -> registry.counter(LEFT, "reason", entry.kind().wireName()).increment();
            case GRANTED, TAKEN_OVER -> entry.waited().ifPresent(time -> {
                registry.counter(LEFT, "reason", GRANTED).increment();
                waited.record(time);
            });
            default -> {
                // a lease's own change
            }
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
