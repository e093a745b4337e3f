package dev.lockstep.history;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.PartitionPosition;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one run observed: the request IDs the clients sent (and the broker acknowledged), the
 * command log as the broker kept it, and every reply published, duplicates included.
 *
 * @param log every command record, in any order (the checker sorts by partition and offset)
 * @param replies reply values by the record key (the request ID), in the order read
 * @param settings the settings the worker decided under
 * @param starts where each partition's state started (its first epoch); a partition not named
 *     starts at offset 0 with token base 0
 * @param events the events topic, when the run read it; then every event is checked too
 */
public record History(Set<String> sent, List<LoggedRecord> log, Map<String, List<byte[]>> replies,
        EngineSettings settings, Map<Integer, PartitionPosition> starts, Optional<ObservedEvents> events) {

    public History {
        sent = Set.copyOf(sent);
        log = List.copyOf(log);
        replies = Map.copyOf(replies);
        starts = Map.copyOf(starts);
    }

    public History(Set<String> sent, List<LoggedRecord> log, Map<String, List<byte[]>> replies,
            EngineSettings settings) {
        this(sent, log, replies, settings, Map.of(), Optional.empty());
    }

    public History startingAt(Map<Integer, PartitionPosition> recorded) {
        return new History(sent, log, replies, settings, recorded, events);
    }

    public History withEvents(ObservedEvents observed) {
        return new History(sent, log, replies, settings, starts, Optional.of(observed));
    }

    public int replyCount() {
        return replies.values().stream().mapToInt(List::size).sum();
    }
}
