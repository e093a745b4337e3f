package dev.lockstep.audit;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.ResourcePartition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code lockstep audit}: who held a resource, when, read from the events topic. One resource
 * reads only its partition; a prefix reads them all. The events say what the worker published;
 * {@code lockstep replay} checks them against the command log.
 *
 * <pre>{@code
 * Holds holds = new Audit(kafka, "lock.events").resource("nightly-report");
 * holds.at(Instant.parse("2026-12-03T02:00:00Z")).map(Hold::owner);
 * }</pre>
 */
public final class Audit {

    private final KafkaSettings kafka;
    private final String eventsTopic;

    public Audit(KafkaSettings kafka, String eventsTopic) {
        this.kafka = kafka;
        this.eventsTopic = eventsTopic;
    }

    public Holds resource(String resource) {
        try (LogReader reader = new LogReader(kafka)) {
            int partition = ResourcePartition.of(resource, reader.partitionCount(eventsTopic));
            List<LeaseEvent> events = new ArrayList<>();
            reader.readAll(eventsTopic, Set.of(partition), r -> {
                if (resource.equals(key(r.key()))) {
                    events.add(EventCodec.decode(r.value()));
                }
            });
            return Holds.of(resource, events);
        }
    }

    /** Every resource whose name starts with {@code prefix}, sorted by name. */
    public List<Holds> prefix(String prefix) {
        Map<String, List<LeaseEvent>> byResource = new TreeMap<>();
        try (LogReader reader = new LogReader(kafka)) {
            reader.readAll(eventsTopic, Set.of(), r -> {
                String resource = key(r.key());
                if (resource.startsWith(prefix)) {
                    byResource.computeIfAbsent(resource, k -> new ArrayList<>()).add(EventCodec.decode(r.value()));
                }
            });
        }
        Map<String, Holds> holds = new LinkedHashMap<>();
        byResource.forEach((resource, events) -> holds.put(resource, Holds.of(resource, events)));
        return List.copyOf(holds.values());
    }

    private static String key(byte[] key) {
        return key == null ? "" : new String(key, StandardCharsets.UTF_8);
    }
}
