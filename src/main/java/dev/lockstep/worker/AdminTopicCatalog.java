package dev.lockstep.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Looks reply topics up through the admin client, with a cache: a topic that exists is
 * remembered for a minute, one that does not for five seconds, so a reply to a missing topic is
 * marked undeliverable at once instead of stalling its partition on producer metadata. What it
 * answers decides only whether the worker writes that mark into the log; the dead letter is
 * then the state machine's, from the mark (so a replay makes the same one).
 */
final class AdminTopicCatalog implements TopicCatalog {

    private static final Duration FOUND_TTL = Duration.ofMinutes(1);
    private static final Duration MISSING_TTL = Duration.ofSeconds(5);

    private record Entry(OptionalInt partitions, Instant until) {
    }

    private final Admin admin;
    private final Clock clock;
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();

    AdminTopicCatalog(Admin admin, Clock clock) {
        this.admin = admin;
        this.clock = clock;
    }

    @Override
    public OptionalInt partitions(String topic) {
        Instant now = clock.instant();
        Entry entry = cache.get(topic);
        if (entry != null && now.isBefore(entry.until())) {
            return entry.partitions();
        }
        OptionalInt partitions = describe(topic);
        cache.put(topic, new Entry(partitions, now.plus(partitions.isPresent() ? FOUND_TTL : MISSING_TTL)));
        return partitions;
    }

    private OptionalInt describe(String topic) {
        try {
            Map<String, TopicDescription> found =
                    admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS);
            return OptionalInt.of(found.get(topic).partitions().size());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return OptionalInt.empty();
            }
            throw new KafkaException("looking up topic " + topic + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("looking up topic " + topic + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while looking up topic " + topic, e);
        }
    }
}
