package dev.lockstep.client;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * How a {@link LockClient} connects and behaves. Checked when built.
 *
 * @param requestTimeout how long a command waits for its reply before failing with {@link LockTimeoutException}
 * @param replyPartition the partition of the reply topic this instance reads; empty picks one at
 *     random. Give each instance of a service its own to keep instances from reading each
 *     other's replies
 * @param renewFraction auto-renewal runs every {@code ttl * renewFraction}
 * @param safetyMarginFraction a lease counts as lost once {@code ttl * (1 - safetyMarginFraction)}
 *     passed since the last successful renewal was sent, by the client's monotonic clock: the
 *     margin covers a difference between that clock's rate and the log's (docs/client.md, "The
 *     clock assumption")
 */
public record LockClientSettings(KafkaSettings kafka, TopicNames topics, Duration requestTimeout,
        OptionalInt replyPartition, double renewFraction, double safetyMarginFraction) {

    public LockClientSettings {
        Objects.requireNonNull(kafka, "kafka");
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(replyPartition, "replyPartition");
        if (requestTimeout.isNegative() || requestTimeout.isZero()) {
            throw new IllegalArgumentException("request timeout must be positive: " + requestTimeout);
        }
        if (replyPartition.isPresent() && replyPartition.getAsInt() < 0) {
            throw new IllegalArgumentException("reply partition must not be negative: " + replyPartition);
        }
        if (!(renewFraction > 0 && renewFraction < 1)) {
            throw new IllegalArgumentException("renew fraction must be between 0 and 1: " + renewFraction);
        }
        if (!(safetyMarginFraction >= 0 && safetyMarginFraction < 1 - renewFraction)) {
            throw new IllegalArgumentException("safety margin must leave room for a renewal: margin "
                    + safetyMarginFraction + ", renew fraction " + renewFraction);
        }
    }

    /** Default topics, 10 s requests, a random reply partition, renewal every third of the TTL, 10 % margin. */
    public static LockClientSettings defaults(KafkaSettings kafka) {
        return new LockClientSettings(kafka, TopicNames.DEFAULT, Duration.ofSeconds(10), OptionalInt.empty(),
                1.0 / 3, 0.1);
    }

    public LockClientSettings withTopics(TopicNames newTopics) {
        return new LockClientSettings(kafka, newTopics, requestTimeout, replyPartition, renewFraction,
                safetyMarginFraction);
    }

    public LockClientSettings withRequestTimeout(Duration timeout) {
        return new LockClientSettings(kafka, topics, timeout, replyPartition, renewFraction, safetyMarginFraction);
    }

    public LockClientSettings withReplyPartition(int partition) {
        return new LockClientSettings(kafka, topics, requestTimeout, OptionalInt.of(partition), renewFraction,
                safetyMarginFraction);
    }
}
