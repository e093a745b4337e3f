package dev.lockstep.worker;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Layout;
import dev.lockstep.engine.PartitionStart;
import dev.lockstep.engine.StoredPartition;
import dev.lockstep.metrics.WorkerMetrics;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts assigned partitions where the database says they stand ({@link PartitionStart}): the
 * database's next offset, not the group's committed offset, is where a partition resumes; a
 * re-created topic, records lost from the log and a settings change start a new epoch, recorded
 * with its reason; a database ahead of the log is refused. Poll thread only.
 */
final class PartitionPositioner {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionPositioner.class);

    private final LockStore store;
    private final Consumer<byte[], byte[]> consumer;
    private final EngineSettings settings;
    private final boolean acceptSettingsChange;
    private final WorkerMetrics metrics;

    PartitionPositioner(LockStore store, Consumer<byte[], byte[]> consumer, EngineSettings settings,
            boolean acceptSettingsChange, WorkerMetrics metrics) {
        this.metrics = metrics;
        this.store = store;
        this.consumer = consumer;
        this.settings = settings;
        this.acceptSettingsChange = acceptSettingsChange;
    }

    /**
     * Seeks each partition to where it resumes, or leaves it out.
     *
     * @return the partitions refused: they must stay paused while this worker owns them
     * @throws WorkerStartException when this worker's settings differ from those recorded
     */
    Set<TopicPartition> position(Collection<TopicPartition> partitions, TopicIdentity identity) {
        Map<TopicPartition, Long> starts = consumer.beginningOffsets(partitions);
        Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
        Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
        EngineSettings current = settings.withPartitions(identity.partitions());
        int startCount = partitions.isEmpty() ? identity.partitions()
                : startCount(partitions.iterator().next().topic(), identity.partitions());
        Set<TopicPartition> refused = new HashSet<>();
        for (TopicPartition tp : partitions) {
            PartitionId id = new PartitionId(tp.topic(), tp.partition());
            Decided decided = store.inPartition(id, tx -> {
                Optional<StoredPartition> stored = tx.partition();
                long floor = stored.isEmpty() ? tx.largestToken() : 0;
                PartitionStart start = PartitionStart.decide(stored, identity.topicId(), starts.get(tp), ends.get(tp),
                        current, acceptSettingsChange, floor, startCount);
                if (start instanceof PartitionStart.Begin begin) {
                    tx.begin(begin.partition(), begin.origin(), begin.reason());
                }
                boolean sameTopic = stored.flatMap(StoredPartition::topicId).equals(Optional.of(identity.topicId()));
                return new Decided(start, sameTopic, sameTopic ? tx.acknowledgedOffset() : 0);
            });
            PartitionStart start = decided.start();
            if (start instanceof PartitionStart.Resume resume) {
                consumer.seek(tp, fetchFrom(resume.offset(), starts.get(tp), committed.get(tp), decided));
            } else if (start instanceof PartitionStart.Begin begin) {
                long offset = begin.partition().position().nextOffset();
                if (begin.origin() == EpochOrigin.RECORDS_LOST) {
                    begin.partition().position().quarantine().ifPresent(q -> metrics.recordsLost(q.lostTo() - q.lostFrom()));
                    LOG.warn("{}: {}; applying from offset {}", tp, begin.reason(), offset);
                } else {
                    LOG.info("{}: {}; applying from offset {}", tp, begin.reason(), offset);
                }
                consumer.seek(tp, fetchFrom(offset, starts.get(tp), committed.get(tp), decided));
            } else {
                PartitionStart.Refuse refuse = (PartitionStart.Refuse) start;
                if (refuse.settingsDiffer()) {
                    throw new WorkerStartException(WorkerStartException.Kind.SETTINGS_DIFFER, tp + ": " + refuse.reason());
                }
                LOG.error("{}: not applied: {}", tp, refuse.reason());
                refused.add(tp);
            }
        }
        return refused;
    }

    /**
     * The count a partition that never started routes by until its seal: the count before the
     * latest growth any started partition took part in (so a partition a growth added holds
     * nothing under it, and takes its seal), or, on a topic none started, the cluster's.
     */
    private int startCount(String topic, int clusterCount) {
        return store.layouts(topic).values().stream().mapToInt(l -> l.growth().map(Layout.Growth::from).orElse(l.partitions()))
                .min().orElse(clusterCount);
    }

    /** @param acknowledged the offset below which the database says every reply was acknowledged */
    private record Decided(PartitionStart start, boolean sameTopic, long acknowledged) {
    }

    /**
     * Records below the database's next offset were applied, but the replies of those from the
     * last known acknowledged offset on may never have reached the broker: they are fetched again
     * and answered as they were. What is known acknowledged is the larger of the database's
     * record and the group's committed offset (committed only after acks); of another incarnation
     * of the topic, neither means anything.
     */
    private static long fetchFrom(long next, long logStart, OffsetAndMetadata committed, Decided decided) {
        if (!decided.sameTopic()) {
            return next;
        }
        long known = Math.max(decided.acknowledged(), committed == null ? 0 : committed.offset());
        return Math.max(logStart, Math.min(known, next));
    }
}
