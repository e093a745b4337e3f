package dev.lockstep.worker;

import java.util.Optional;

/** Tells what the cluster has of a topic now: its partitions and the largest record it takes, or that it does not exist. */
@FunctionalInterface
public interface TopicCatalog {

    /**
     * @param partitions how many partitions it has
     * @param maxMessageBytes its {@code max.message.bytes}: the largest record batch the broker takes
     */
    record Topic(int partitions, int maxMessageBytes) {
    }

    Optional<Topic> topic(String name);
}
