package dev.lockstep.protocol;

import java.util.Objects;

/**
 * The three topics of the protocol.
 *
 * @param commands where commands are published, keyed by resource
 * @param replies the default reply topic
 * @param deadLetters where records that cannot be answered go
 */
public record TopicNames(String commands, String replies, String deadLetters) {

    public static final TopicNames DEFAULT = new TopicNames("lock.commands", "lock.replies", "lock.commands.dlq");

    public TopicNames {
        Objects.requireNonNull(commands, "commands");
        Objects.requireNonNull(replies, "replies");
        Objects.requireNonNull(deadLetters, "deadLetters");
        if (commands.equals(replies) || commands.equals(deadLetters) || replies.equals(deadLetters)) {
            throw new IllegalArgumentException("the command, reply and dead-letter topics must differ: " + commands
                    + ", " + replies + ", " + deadLetters);
        }
    }
}
