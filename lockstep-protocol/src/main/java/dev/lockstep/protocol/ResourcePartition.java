package dev.lockstep.protocol;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;

/**
 * The partition a resource belongs on: the Java client's default partitioner (murmur2 of the
 * UTF-8 key, made positive, mod the count). Commands, and so lease events, live there.
 */
public final class ResourcePartition {

    private ResourcePartition() {
    }

    public static int of(byte[] key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    public static int of(String resource, int partitions) {
        return of(resource.getBytes(StandardCharsets.UTF_8), partitions);
    }
}
