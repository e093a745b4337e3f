package dev.lockstep.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.protocol.ResourcePartition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Command JSON for tests, written field by field so that tests can also write it wrong. */
public final class Commands {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Commands() {
    }

    public static String newId() {
        return UUID.randomUUID().toString();
    }

    public static ObjectNode command(String requestId, String type, String resource) {
        return MAPPER.createObjectNode().put("request_id", requestId).put("type", type).put("resource", resource);
    }

    public static ObjectNode acquire(String requestId, String resource, String owner, long ttl) {
        return command(requestId, "acquire", resource).put("owner", owner).put("ttl_seconds", ttl);
    }

    public static ObjectNode renew(String requestId, String resource, String owner, long ttl) {
        return command(requestId, "renew", resource).put("owner", owner).put("ttl_seconds", ttl);
    }

    public static ObjectNode release(String requestId, String resource, String owner) {
        return command(requestId, "release", resource).put("owner", owner);
    }

    public static ObjectNode status(String requestId, String resource) {
        return command(requestId, "status", resource);
    }

    /**
     * The first resource named {@code prefix-N} on each partition of a topic of {@code partitions}
     * (as the Java client partitions): a command for each partition.
     */
    public static List<String> onEachPartition(String prefix, int partitions) {
        List<String> resources = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            int i = 0;
            while (ResourcePartition.of((prefix + "-" + i).getBytes(StandardCharsets.UTF_8), partitions) != p) {
                i++;
            }
            resources.add(prefix + "-" + i);
        }
        return resources;
    }

    public static JsonNode parse(byte[] json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("a reply that is not JSON", e);
        }
    }
}
