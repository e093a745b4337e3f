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
 * @param beliefs what the clients that took part believed they held, and when (none for a run of
 *     raw commands)
 */
public record History(Set<String> sent, List<LoggedRecord> log, Map<String, List<byte[]>> replies,
        List<Belief> beliefs) {

    public History {
        sent = Set.copyOf(sent);
        log = List.copyOf(log);
        replies = Map.copyOf(replies);
        beliefs = List.copyOf(beliefs);
    }

    /** A run of raw commands: no client believed anything. */
    public History(Set<String> sent, List<LoggedRecord> log, Map<String, List<byte[]>> replies) {
        this(sent, log, replies, List.of());
    }

    /** The same history, with what the clients believed. */
    public History withBeliefs(List<Belief> believed) {
        return new History(sent, log, replies, believed);
    }

    public int replyCount() {
        return replies.values().stream().mapToInt(List::size).sum();
    }
}
