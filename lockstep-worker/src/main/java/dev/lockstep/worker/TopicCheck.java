package dev.lockstep.worker;

import dev.lockstep.protocol.TopicNames;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntUnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
import org.apache.kafka.common.config.TopicConfig;

/** The worker's checks of the topics it needs: at start, and of the command topic's identity while it runs. */
final class TopicCheck {

    private static final Logger LOG = LoggerFactory.getLogger(TopicCheck.class);

    /** Room for the largest reply or lease event the protocol's limits allow, and a dead letter's headers, with margin. */
    static final int MIN_MESSAGE_BYTES = 16 * 1024;

    private final Admin admin;
    private final TopicNames topics;

    TopicCheck(Admin admin, TopicNames topics) {
        this.admin = admin;
        this.topics = topics;
    }

    /**
     * Refuses to start without the protocol's topics, with a command topic that does not stamp
     * log-append time, or with an events topic of fewer partitions than the command topic routes by.
     *
     * @param routedBy the count the command topic's partitions route by, given the count it has
     */
    TopicIdentity verify(IntUnaryOperator routedBy) {
        Set<String> existing = await(admin.listTopics().names(), "listing topics");
        Set<String> missing = new TreeSet<>(topics.all());
        missing.removeAll(existing);
        if (!missing.isEmpty()) {
            throw new WorkerStartException("missing topics " + missing + "; create them with: lockstep topics apply");
        }
        requireLogAppendTime();
        requireRoomForWhatTheWorkerWrites();
        TopicIdentity identity = identity();
        int eventPartitions = await(admin.describeTopics(List.of(topics.events())).allTopicNames(),
                "describing the events topic").get(topics.events()).partitions().size();
        if (eventPartitions < routedBy.applyAsInt(identity.partitions())) {
            throw new WorkerStartException("the events topic " + topics.events() + " has " + eventPartitions
                    + " partitions but the command topic " + topics.commands() + " routes by "
                    + routedBy.applyAsInt(identity.partitions()) + "; each command's events go to the partition of "
                    + "the same number, so it must have at least as many (lockstep topics grow)");
        }
        if (eventPartitions < identity.partitions()) {
            LOG.warn("the command topic has {} partitions, the events topic {} has {}: the command topic grows once "
                    + "it has as many (lockstep topics grow)", identity.partitions(), topics.events(), eventPartitions);
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

    /**
     * A reply, a lease event and a dead letter cut to its smallest are bounded by the protocol's
     * limits (a few KiB); a topic that cannot take them would stall every partition on them.
     */
    private void requireRoomForWhatTheWorkerWrites() {
        List<ConfigResource> written = List.of(topics.replies(), topics.events(), topics.deadLetters()).stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
        Map<ConfigResource, Config> configs = await(admin.describeConfigs(written).all(), "reading the topics' configs");
        for (ConfigResource topic : written) {
            ConfigEntry max = configs.get(topic).get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
            if (max != null && Integer.parseInt(max.value()) < MIN_MESSAGE_BYTES) {
                throw new WorkerStartException("the topic " + topic.name() + " has max.message.bytes=" + max.value()
                        + "; the worker needs at least " + MIN_MESSAGE_BYTES + " for what it writes there. Fix it "
                        + "with: kafka-configs --alter --entity-type topics --entity-name " + topic.name()
                        + " --add-config max.message.bytes=" + MIN_MESSAGE_BYTES);
            }
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
