package dev.lockstep.history;

import java.util.List;

/**
 * The events topic as a run left it, duplicates included.
 *
 * @param commandTopic the command topic the events came from: their IDs and sources name it
 */
public record ObservedEvents(String commandTopic, List<Published> published) {

    /** One record of the events topic. */
    public record Published(int partition, String key, byte[] value) {
    }

    public ObservedEvents {
        published = List.copyOf(published);
    }
}
