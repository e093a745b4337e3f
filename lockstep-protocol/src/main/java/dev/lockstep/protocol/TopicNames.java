package dev.lockstep.protocol;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The four topics of the protocol.
 *
 * @param commands where commands are published, keyed by resource
 * @param replies the default reply topic
 * @param deadLetters where records that cannot be answered go
 * @param events where lease events go: as many partitions as {@code commands}, the same partition as their command
 */
public record TopicNames(String commands, String replies, String deadLetters, String events) {

    public static final TopicNames DEFAULT =
            new TopicNames("lock.commands", "lock.replies", "lock.commands.dlq", "lock.events");

    public TopicNames {
        Objects.requireNonNull(commands, "commands");
        Objects.requireNonNull(replies, "replies");
        Objects.requireNonNull(deadLetters, "deadLetters");
        Objects.requireNonNull(events, "events");
        if (Set.of(commands, replies, deadLetters, events).size() != 4) {
            throw new IllegalArgumentException("the command, reply, dead-letter and event topics must differ: "
                    + commands + ", " + replies + ", " + deadLetters + ", " + events);
        }
    }

    /** Every topic's name with {@code suffix} appended: fresh topics for a test or a benchmark. */
    public TopicNames suffixed(String suffix) {
        return new TopicNames(commands + suffix, replies + suffix, deadLetters + suffix, events + suffix);
    }

    public List<String> all() {
        return List.of(commands, replies, deadLetters, events);
    }
}
