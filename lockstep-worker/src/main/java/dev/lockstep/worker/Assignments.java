package dev.lockstep.worker;

import dev.lockstep.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which assigned partitions may be applied. A partition is paused from its assignment until the
 * {@link PartitionPositioner} has put it where the database says (retried while the database is
 * down); a refused one stays paused. The command topic's ID is checked again every
 * {@link #IDENTITY_CHECK}: when it changed (the topic was deleted and created again), every
 * partition is positioned anew. Poll thread only, except {@link #topicId()}.
 */
final class Assignments implements Settlement.Positions {

    private static final Logger LOG = LoggerFactory.getLogger(Assignments.class);
    static final Duration IDENTITY_CHECK = Duration.ofSeconds(2);

    private final Consumer<byte[], byte[]> consumer;
    private final PartitionPositioner positioner;
    private final TopicCheck topicCheck;
    private final Clock clock;
    private final Set<TopicPartition> unpositioned = new HashSet<>();
    private final Set<TopicPartition> refused = new HashSet<>();
    private volatile TopicIdentity identity;
    private Instant nextIdentityCheck;
    private Optional<KafkaFuture<TopicIdentity>> identityAsked = Optional.empty();
    private Instant nextAttempt = Instant.MIN;
    private final Backoff backoff = new Backoff();
    private final WorkerHealth health;
    private final Set<TopicPartition> owned = new HashSet<>();
    /**
     * Per applicable partition, the offset the database is known to stand at or above: where it
     * was positioned from the database, raised by each batch this worker committed. The database
     * never moves back on its own; one found below it lost commits (a backup restored in place, an
     * asynchronous replica promoted) and must not be applied on as if it had not.
     */
    private final Map<TopicPartition, Long> floors = new HashMap<>();

    Assignments(Consumer<byte[], byte[]> consumer, PartitionPositioner positioner, TopicCheck topicCheck,
            TopicIdentity identity, Clock clock, WorkerHealth health) {
        this.health = health;
        this.consumer = consumer;
        this.positioner = positioner;
        this.topicCheck = topicCheck;
        this.identity = identity;
        this.clock = clock;
        this.nextIdentityCheck = clock.instant().plus(IDENTITY_CHECK);
    }

    /** The command topic's ID as last seen: a batch of another incarnation's partition is refused. */
    Optional<String> topicId() {
        return Optional.of(identity.topicId());
    }

    void assigned(Collection<TopicPartition> partitions) {
        consumer.pause(partitions);
        partitions.forEach(floors::remove);
        owned.addAll(partitions);
        unpositioned.addAll(partitions);
        refused.removeAll(partitions);
        nextAttempt = Instant.MIN;
        tellHealth();
    }

    @Override
    public void reposition(Collection<TopicPartition> partitions) {
        assigned(partitions);
    }

    void revoked(Collection<TopicPartition> partitions) {
        partitions.forEach(floors::remove);
        owned.removeAll(partitions);
        unpositioned.removeAll(partitions);
        refused.removeAll(partitions);
        tellHealth();
    }

    private void tellHealth() {
        health.partitions(new WorkerHealth.Partitions(owned.stream().map(TopicPartition::partition)
                .collect(Collectors.toSet()), unpositioned.size(),
                refused.stream().map(TopicPartition::toString).sorted().toList()));
    }

    @Override
    public boolean applicable(TopicPartition tp) {
        return !unpositioned.contains(tp) && !refused.contains(tp);
    }

    /**
     * Asks the cluster for the topic's identity when due, and takes the answer once it has come:
     * the poll thread never waits for it (a describe under load takes long enough to show in the
     * latency of every partition).
     *
     * @return true when it changed: the caller finishes every batch in flight, then calls
     *     {@link #assigned} with the whole assignment
     */
    boolean identityChanged() {
        if (identityAsked.isPresent()) {
            KafkaFuture<TopicIdentity> asked = identityAsked.get();
            if (!asked.isDone()) {
                return false;
            }
            identityAsked = Optional.empty();
            try {
                return adopt(asked.getNow(identity));
            } catch (ExecutionException e) {
                LOG.warn("checking the command topic's identity failed (will check again): {}", e.getCause().getMessage());
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        Instant now = clock.instant();
        if (!now.isBefore(nextIdentityCheck)) {
            nextIdentityCheck = now.plus(IDENTITY_CHECK);
            identityAsked = Optional.of(topicCheck.identityAsked());
        }
        return false;
    }

    private boolean adopt(TopicIdentity seen) {
        if (seen.equals(identity)) {
            return false;
        }
        if (seen.topicId().equals(identity.topicId())) {
            // Grown: no partition is positioned anew; its seals re-route each as it applies them.
            LOG.info("the command topic has {} partitions, had {}", seen.partitions(), identity.partitions());
            identity = seen;
            return false;
        }
        LOG.warn("the command topic changed: ID {} with {} partitions, was {} with {}; positioning its partitions anew",
                seen.topicId(), seen.partitions(), identity.topicId(), identity.partitions());
        identity = seen;
        return true;
    }

    /** Positions what waits to be positioned, when due; resumes those that may now be applied. */
    void positionPending() {
        Set<TopicPartition> pending = new HashSet<>(unpositioned);
        pending.retainAll(consumer.assignment());
        unpositioned.retainAll(pending);
        if (pending.isEmpty() || clock.instant().isBefore(nextAttempt)) {
            return;
        }
        try {
            // Asked afresh: positioning against a stale ID would take a re-created topic for a truncated one.
            adopt(topicCheck.identity());
            Set<TopicPartition> notApplied = positioner.position(pending, identity);
            unpositioned.removeAll(pending);
            refused.addAll(notApplied);
            // Just sought, at or below the database's next offset: the consumer knows it without asking.
            pending.stream().filter(this::applicable).forEach(tp -> floors.put(tp, consumer.position(tp)));
            consumer.resume(pending.stream().filter(this::applicable).toList());
            backoff.reset();
            tellHealth();
        } catch (StoreException | KafkaException | WorkerStartException e) {
            if (e instanceof WorkerStartException refusal && refusal.kind() == WorkerStartException.Kind.SETTINGS_DIFFER) {
                throw refusal;
            }
            Duration delay = backoff.next();
            nextAttempt = clock.instant().plus(delay);
            LOG.warn("positioning partitions {} failed, will retry in {} ms: {}", pending, delay.toMillis(),
                    e.getMessage());
        }
    }

    /** The offset the partition's database row must stand at or above (0 before it was positioned). */
    long floor(TopicPartition tp) {
        return floors.getOrDefault(tp, 0L);
    }

    @Override
    public void committed(TopicPartition tp, long nextOffset) {
        floors.computeIfPresent(tp, (k, floor) -> Math.max(floor, nextOffset));
    }
}
