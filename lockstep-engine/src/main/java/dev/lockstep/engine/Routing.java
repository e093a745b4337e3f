package dev.lockstep.engine;

/** Whether a command's reply can be routed, and where. */
public sealed interface Routing {

    record Routed(ReplyRoute route) implements Routing {
    }

    /** No reply may be sent; the record is dead-lettered with this reason. */
    record Refused(String reason) implements Routing {
    }
}
