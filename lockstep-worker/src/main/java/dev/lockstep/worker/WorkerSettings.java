package dev.lockstep.worker;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Timekeeping;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.CheckpointPolicy;
import java.time.Duration;
import java.util.Objects;

/**
 * Everything a worker needs besides its store. Checked when built: the default reply topic must
 * itself be allowed, or every command without {@code reply_to} would be dead-lettered.
 *
 * @param acceptSettingsChange when this worker's decision settings differ from those recorded for
 *     a partition, record its own from the partition's next offset on, instead of refusing
 * @param checkpoints how often each partition's state is recorded for replays that start after the
 *     log's beginning was deleted
 * @param stallTimeout how long a partition's records may wait for their batch to commit (hung or
 *     failing database) before {@code /health/live} fails
 * @param transactionLimit how long a producer's transaction may hold a command partition's last
 *     stable offset before the worker aborts it ({@link StuckTransactions}); zero: never
 */
public record WorkerSettings(KafkaSettings kafka, TopicNames topics, String groupId, TopicAllowList replyTopics,
        Limits limits, Retention retention, int applyThreads, boolean acceptSettingsChange,
        CheckpointPolicy checkpoints, Duration stallTimeout, Duration transactionLimit) {

    public static final String DEFAULT_GROUP = "lockstep-worker";
    /** Partition batches applied side by side; each holds one database connection while it runs. */
    public static final int DEFAULT_APPLY_THREADS = 12;
    /**
     * The recovery goal (docs/operations.md#recovery): past the database's own timeouts (3 s) and a
     * retry or two, a partition that still cannot commit is one its callers notice.
     */
    public static final Duration DEFAULT_STALL_TIMEOUT = Duration.ofSeconds(10);
    /** Well past a transaction a producer of commands needs, short of a stall its callers would notice. */
    public static final Duration DEFAULT_TRANSACTION_LIMIT = Duration.ofSeconds(5);

    public WorkerSettings {
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(groupId, "groupId");
        Objects.requireNonNull(replyTopics, "replyTopics");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(retention, "retention");
        Objects.requireNonNull(checkpoints, "checkpoints");
        Objects.requireNonNull(stallTimeout, "stallTimeout");
        Objects.requireNonNull(transactionLimit, "transactionLimit");
        if (!transactionLimit.isZero() && transactionLimit.toMillis() < 1000) {
            throw new IllegalArgumentException("the transaction limit must be 0 (never abort) or at least 1 s: "
                    + transactionLimit);
        }
        if (applyThreads < 1) {
            throw new IllegalArgumentException("apply threads must be at least 1: " + applyThreads);
        }
        if (groupId.isBlank()) {
            throw new IllegalArgumentException("the consumer group id must not be empty");
        }
        if (!replyTopics.allows(topics.replies())) {
            throw new IllegalArgumentException("the default reply topic " + topics.replies()
                    + " is not on the reply allow-list " + replyTopics.entries());
        }
        if (replyTopics.allows(topics.commands()) || replyTopics.allows(topics.deadLetters())
                || replyTopics.allows(topics.events())) {
            throw new IllegalArgumentException("the reply allow-list " + replyTopics.entries()
                    + " must not allow the command, dead-letter or events topic");
        }
    }

    public static WorkerSettings defaults(KafkaSettings kafka) {
        return new WorkerSettings(kafka, TopicNames.DEFAULT, DEFAULT_GROUP, new TopicAllowList(TopicAllowList.DEFAULT),
                Limits.defaults(), Retention.DEFAULT, DEFAULT_APPLY_THREADS, false,
                CheckpointPolicy.DEFAULT, DEFAULT_STALL_TIMEOUT, DEFAULT_TRANSACTION_LIMIT);
    }

    /** The settings that decide replies, for a command topic of {@code partitions} partitions. */
    public EngineSettings engine(int partitions) {
        return new EngineSettings(limits, retention.requests(), replyTopics, topics.replies(), partitions,
                new Timekeeping.Anchored(Timekeeping.DEFAULT_SLACK));
    }

    public WorkerSettings withTopics(TopicNames newTopics, TopicAllowList newReplyTopics) {
        return new WorkerSettings(kafka, newTopics, groupId, newReplyTopics, limits, retention, applyThreads,
                acceptSettingsChange, checkpoints, stallTimeout, transactionLimit);
    }

    public WorkerSettings withGroupId(String newGroupId) {
        return new WorkerSettings(kafka, topics, newGroupId, replyTopics, limits, retention, applyThreads,
                acceptSettingsChange, checkpoints, stallTimeout, transactionLimit);
    }

    public WorkerSettings withLimits(Limits newLimits, boolean acceptChange) {
        return new WorkerSettings(kafka, topics, groupId, replyTopics, newLimits, retention, applyThreads, acceptChange,
                checkpoints, stallTimeout, transactionLimit);
    }

    public WorkerSettings withCheckpoints(CheckpointPolicy newCheckpoints) {
        return new WorkerSettings(kafka, topics, groupId, replyTopics, limits, retention, applyThreads,
                acceptSettingsChange, newCheckpoints, stallTimeout, transactionLimit);
    }

    public WorkerSettings withRetention(Retention newRetention) {
        return new WorkerSettings(kafka, topics, groupId, replyTopics, limits, newRetention, applyThreads,
                acceptSettingsChange, checkpoints, stallTimeout, transactionLimit);
    }

    public WorkerSettings withStallTimeout(Duration newStallTimeout) {
        return new WorkerSettings(kafka, topics, groupId, replyTopics, limits, retention, applyThreads,
                acceptSettingsChange, checkpoints, newStallTimeout, transactionLimit);
    }

    public WorkerSettings withTransactionLimit(Duration newTransactionLimit) {
        return new WorkerSettings(kafka, topics, groupId, replyTopics, limits, retention, applyThreads,
                acceptSettingsChange, checkpoints, stallTimeout, newTransactionLimit);
    }
}
