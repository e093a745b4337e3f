package dev.lockstep.worker;

import dev.lockstep.protocol.TopicNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;

/** The worker's checks of the topics it needs: at start, and of the command topic's identity while it runs. */
final class TopicCheck {

    private final Admin admin;
    private final TopicNames topics;

    TopicCheck(Admin admin, TopicNames topics) {
        this.admin = admin;
        this.topics = topics;
    }

    /**
     * Refuses to start without the protocol's topics, with a command topic that does not stamp
     * log-append time, or with an events topic whose partitions are not the command topic's.
     */
    TopicIdentity verify() {
        Set<String> existing = await(admin.listTopics().names(), "listing topics");
        Set<String> missing = new TreeSet<>(topics.all());
        missing.removeAll(existing);
        if (!missing.isEmpty()) {
            throw new WorkerStartException("missing topics " + missing + "; create them with: lockstep topics apply");
        }
        requireLogAppendTime();
        TopicIdentity identity = identity();
        int eventPartitions = await(admin.describeTopics(List.of(topics.events())).allTopicNames(),
                "describing the events topic").get(topics.events()).partitions().size();
        if (eventPartitions != identity.partitions()) {
            throw new WorkerStartException("the events topic " + topics.events() + " has " + eventPartitions
                    + " partitions but the command topic " + topics.commands() + " has " + identity.partitions()
                    + "; each command's events go to the partition of the same number, so they must have as many");
        }
        return identity;
    }

    /** The command topic's ID and partition count, asked of the cluster now. */
    TopicIdentity identity() {
        return await(identityAsked(), "describing the command topic");
    }

    /** As {@link #identity()}, without waiting: the poll thread must not block on the cluster. */
    KafkaFuture<TopicIdentity> identityAsked() {
        return admin.describeTopics(List.of(topics.commands())).allTopicNames().thenApply(found -> {
            TopicDescription description = found.get(topics.commands());
            return new TopicIdentity(description.topicId().toString(), description.partitions().size());
        });
    }

    private void requireLogAppendTime() {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topics.commands());
        Config config = await(admin.describeConfigs(List.of(resource)).all(), "reading the command topic's config")
                .get(resource);
        ConfigEntry type = config.get("message.timestamp.type");
        if (type == null || !"LogAppendTime".equals(type.value())) {
            throw new WorkerStartException(WorkerStartException.Kind.NOT_LOG_APPEND_TIME, "the command topic "
                    + topics.commands() + " has message.timestamp.type=" + (type == null ? "(unknown)" : type.value())
                    + "; the worker needs LogAppendTime, the broker's time, as every command's \"now\" (a producer's "
                    + "timestamp can be forged). Fix it with: kafka-configs --alter --entity-type topics "
                    + "--entity-name " + topics.commands() + " --add-config message.timestamp.type=LogAppendTime");
        }
    }

    private static <T> T await(KafkaFuture<T> future, String what) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new WorkerStartException(what + " on the Kafka cluster failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerStartException("interrupted while " + what, e);
        }
    }
}
