package dev.lockstep.topics;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One declared topic. Checked when built: a file with zero partitions or a bad name is refused
 * before anything reaches the broker.
 */
public record TopicSpec(String name, int partitions, short replicationFactor, Map<String, String> configs) {

    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

    public TopicSpec {
        if (!LEGAL_TOPIC.matcher(name).matches()) {
            throw new IllegalArgumentException("not a legal topic name: '" + name + "'");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException(name + ": partitions must be at least 1");
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException(name + ": replication.factor must be at least 1");
        }
        configs = Map.copyOf(new TreeMap<>(configs));
    }

    public TopicSpec withName(String newName) {
        return new TopicSpec(newName, partitions, replicationFactor, configs);
    }

    public TopicSpec withPartitions(int newPartitions) {
        return new TopicSpec(name, newPartitions, replicationFactor, configs);
    }

    /**
     * The same topic for a cluster with fewer brokers. {@code min.insync.replicas} is lowered to
     * the new factor when it would exceed it, or no acks=all producer could ever write.
     */
    public TopicSpec withReplicationFactor(short factor) {
        Map<String, String> adjusted = new TreeMap<>(configs);
        adjusted.computeIfPresent("min.insync.replicas",
                (k, v) -> Integer.parseInt(v) > factor ? Short.toString(factor) : v);
        return new TopicSpec(name, partitions, factor, adjusted);
    }
}
