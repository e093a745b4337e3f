package dev.lockstep.worker;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Looks topics up through the admin client (partitions, and {@code max.message.bytes}), with a
 * cache: a topic that exists is remembered for a minute, one that does not for five seconds, so a
 * reply to a missing topic is marked undeliverable at once instead of stalling its partition on
 * producer metadata. What it answers decides only whether the worker writes that mark into the log,
 * and how much of a record a copy of it can carry; the dead letter is then the state machine's,
 * from the mark (so a replay makes the same one).
 */
final class AdminTopicCatalog implements TopicCatalog {

    private static final Duration FOUND_TTL = Duration.ofMinutes(1);
    private static final Duration MISSING_TTL = Duration.ofSeconds(5);

    private record Entry(Optional<Topic> topic, Instant until) {
    }

    private final Admin admin;
    private final Clock clock;
    private final Map<String, Entry> cache = new ConcurrentHashMap<>();

    AdminTopicCatalog(Admin admin, Clock clock) {
        this.admin = admin;
        this.clock = clock;
    }

    @Override
    public Optional<Topic> topic(String name) {
        Instant now = clock.instant();
        Entry entry = cache.get(name);
        if (entry != null && now.isBefore(entry.until())) {
            return entry.topic();
        }
        Optional<Topic> topic = describe(name);
        cache.put(name, new Entry(topic, now.plus(topic.isPresent() ? FOUND_TTL : MISSING_TTL)));
        return topic;
    }

    private Optional<Topic> describe(String name) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
        KafkaFuture<Map<String, TopicDescription>> described = admin.describeTopics(List.of(name)).allTopicNames();
        KafkaFuture<Map<ConfigResource, Config>> configured = admin.describeConfigs(List.of(resource)).all();
        try {
            int partitions = described.get(10, TimeUnit.SECONDS).get(name).partitions().size();
            ConfigEntry max = configured.get(10, TimeUnit.SECONDS).get(resource).get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
            return Optional.of(new Topic(partitions, Integer.parseInt(max.value())));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw new KafkaException("looking up topic " + name + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("looking up topic " + name + " timed out", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while looking up topic " + name, e);
        }
    }
}
