package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Contended waves of commands on a few resources, sent and awaited whole: what the database-loss tests replay. */
final class Waves {

    private Waves() {
    }

    /**
     * Acquires (most refused, some taking over), and releases, on five resources.
     *
     * @param prefix of the resources: tests that share a database must not share resources
     */
    static List<ObjectNode> wave(String tag, int size, String prefix) {
        List<ObjectNode> commands = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            String resource = prefix + (i % 5);
            commands.add(i % 4 == 3 ? release(newId(), resource, "owner-" + (i % 3))
                    : acquire(tag + "-" + newId(), resource, "owner-" + (i % 3), 600));
        }
        return commands;
    }

    /** Sends the wave and returns each request's first reply. */
    static Map<String, byte[]> run(Wire wire, List<ObjectNode> commands) {
        commands.forEach(wire::send);
        Map<String, byte[]> replies = new HashMap<>();
        for (ObjectNode command : commands) {
            String id = command.path("request_id").asText();
            replies.put(id, wire.await(id, 1).get(0).value());
        }
        return replies;
    }
}
