package dev.lockstep.worker;

import dev.lockstep.protocol.TopicNames;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The worker's start-up check of the topics it needs. */
final class TopicCheck {

    private static final Logger LOG = LoggerFactory.getLogger(TopicCheck.class);

    private final Admin admin;
    private final TopicNames topics;

    TopicCheck(Admin admin, TopicNames topics) {
        this.admin = admin;
        this.topics = topics;
    }

    void verify() {
        Set<String> existing;
        try {
            existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new WorkerStartException("cannot list topics on the Kafka cluster: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WorkerStartException("interrupted while listing topics", e);
        }
        Set<String> missing = new TreeSet<>(List.of(topics.commands(), topics.replies(), topics.deadLetters()));
        missing.removeAll(existing);
        if (!missing.isEmpty()) {
            throw new WorkerStartException("missing topics " + missing + "; create them with: lockstep topics apply");
        }
        warnUnlessLogAppendTime();
    }

    private void warnUnlessLogAppendTime() {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topics.commands());
        try {
            Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
            ConfigEntry type = config.get("message.timestamp.type");
            if (type == null || !"LogAppendTime".equals(type.value())) {
                LOG.warn("command topic {} has message.timestamp.type={}; the worker falls back to its own clock "
                        + "(declare LogAppendTime, see topics/)", topics.commands(), type == null ? null : type.value());
            }
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("could not read the configuration of {}: {}", topics.commands(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
