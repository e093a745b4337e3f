package dev.lockstep.topics;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates missing topics and reports drift on existing ones; never alters an existing topic. */
public final class TopicApplier {

    private static final long TIMEOUT_SECONDS = 30;

    private final Admin admin;

    public TopicApplier(Admin admin) {
        this.admin = admin;
    }

    public List<TopicReport> apply(Collection<TopicSpec> specs) {
        List<TopicReport> reports = new ArrayList<>();
        Set<String> existing = await(admin.listTopics().names());
        for (TopicSpec spec : specs) {
            if (!existing.contains(spec.name()) && create(spec)) {
                reports.add(new TopicReport(spec.name(), TopicReport.Status.CREATED, List.of()));
                continue;
            }
            List<String> drift = drift(spec);
            reports.add(new TopicReport(spec.name(),
                    drift.isEmpty() ? TopicReport.Status.MATCHES : TopicReport.Status.DRIFT, drift));
        }
        awaitListed(specs);
        return reports;
    }

    /**
     * A created topic reaches every broker's metadata a moment later: wait until it is listed, so
     * that a worker started right after (dev, the benchmark, the tests) finds its topics.
     */
    private void awaitListed(Collection<TopicSpec> specs) {
        Set<String> wanted = new HashSet<>();
        specs.forEach(spec -> wanted.add(spec.name()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
        while (!await(admin.listTopics().names()).containsAll(wanted)) {
            if (System.nanoTime() > deadline) {
                throw new KafkaException("created topics " + wanted + " are not listed after " + TIMEOUT_SECONDS + " s");
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw failed("waiting for the created topics", e);
            }
        }
    }

    /** @return false when another process created the topic first */
    private boolean create(TopicSpec spec) {
        NewTopic topic = new NewTopic(spec.name(), spec.partitions(), spec.replicationFactor()).configs(spec.configs());
        try {
            admin.createTopics(List.of(topic)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                return false;
            }
            throw new KafkaException("creating topic " + spec.name() + " failed: " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw failed("creating topic " + spec.name(), e);
        }
    }

    private List<String> drift(TopicSpec spec) {
        List<String> drift = new ArrayList<>();
        TopicDescription description = await(admin.describeTopics(List.of(spec.name())).allTopicNames()).get(spec.name());
        int partitions = description.partitions().size();
        if (partitions != spec.partitions()) {
            drift.add("partitions " + partitions + " (declared " + spec.partitions() + ")");
        }
        int replicas = description.partitions().get(0).replicas().size();
        if (replicas != spec.replicationFactor()) {
            drift.add("replication.factor " + replicas + " (declared " + spec.replicationFactor() + ")");
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, spec.name());
        Map<ConfigResource, Config> configs = await(admin.describeConfigs(List.of(resource)).all());
        Config actual = configs.get(resource);
        spec.configs().forEach((key, declared) -> {
            ConfigEntry entry = actual.get(key);
            String value = entry == null ? null : entry.value();
            if (!declared.equals(value)) {
                drift.add(key + "=" + value + " (declared " + declared + ")");
            }
        });
        return drift;
    }

    private static <T> T await(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new KafkaException(e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw failed("talking to the broker", e);
        }
    }

    private static KafkaException failed(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        return new KafkaException(what + " did not finish within " + TIMEOUT_SECONDS + " s", e);
    }
}
