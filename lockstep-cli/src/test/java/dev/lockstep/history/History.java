package dev.lockstep.history;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one run observed: the request IDs the clients sent (and the broker acknowledged), the
 * command log as the broker kept it, and every reply published, duplicates included.
 *
 * @param log every command record, in any order (the checker sorts by partition and offset)
 * @param replies reply values by the record key (the request ID), in the order read
 */
public record History(Set<String> sent, List<LoggedRecord> log, Map<String, List<byte[]>> replies) {

    public History {
        sent = Set.copyOf(sent);
        log = List.copyOf(log);
        replies = Map.copyOf(replies);
    }

    public int replyCount() {
        return replies.values().stream().mapToInt(List::size).sum();
    }
}
