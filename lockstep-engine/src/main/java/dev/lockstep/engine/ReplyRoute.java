package dev.lockstep.engine;

import java.util.OptionalInt;

/** Where one reply is published: a topic, and a partition when the caller asked for one. */
public record ReplyRoute(String topic, OptionalInt partition) {
}
