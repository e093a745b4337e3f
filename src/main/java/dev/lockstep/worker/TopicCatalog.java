package dev.lockstep.worker;

import java.util.OptionalInt;

/** Tells how many partitions a topic has, or that it does not exist. */
@FunctionalInterface
public interface TopicCatalog {

    OptionalInt partitions(String topic);
}
