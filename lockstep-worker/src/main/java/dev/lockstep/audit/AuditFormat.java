package dev.lockstep.audit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.protocol.ReplyEncoder;
import java.util.List;

/** Writes holds as JSON, a text table, or one self-contained HTML timeline. */
public enum AuditFormat {
    TEXT, JSON, HTML;

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public String write(List<Holds> resources) {
        return switch (this) {
            case JSON -> resources.size() == 1 ? json(resources.get(0)).toString() : jsonArray(resources).toString();
            case TEXT -> text(resources);
            case HTML -> Timeline.html(jsonArray(resources).toString());
        };
    }

    static ObjectNode json(Holds holds) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("resource", holds.resource());
        ArrayNode list = root.putArray("holds");
        for (Hold hold : holds.all()) {
            ObjectNode node = list.addObject();
            node.put("owner", hold.owner());
            node.put("fencing_token", hold.fencingToken());
            node.put("acquired_at", ReplyEncoder.formatTime(hold.acquiredAt()));
            node.put("expires_at", ReplyEncoder.formatTime(hold.expiresAt()));
            hold.endedAt().ifPresentOrElse(t -> node.put("ended_at", ReplyEncoder.formatTime(t)),
                    () -> node.putNull("ended_at"));
            node.put("end", hold.end().wireName());
            node.put("taken_over", hold.takenOver());
            hold.waited().ifPresent(waited -> node.put("waited_ms", waited.toMillis()));
            if (!hold.exclusive()) {
                node.put("permit", hold.permit());
            }
            hold.value().ifPresent(value -> node.put("value", value));
        }
        return root;
    }

    private static ArrayNode jsonArray(List<Holds> resources) {
        ArrayNode array = MAPPER.createArrayNode();
        resources.forEach(r -> array.add(json(r)));
        return array;
    }

    private static String text(List<Holds> resources) {
        StringBuilder out = new StringBuilder();
        for (Holds holds : resources) {
            out.append(holds.resource()).append(": ").append(holds.all().size()).append(" holds\n");
            if (!holds.all().isEmpty()) {
                out.append(String.format("  %-24s %6s  %-24s  %-24s  %s%n", "owner", "token", "acquired_at", "until",
                        "end"));
            }
            for (Hold hold : holds.all()) {
                out.append(String.format("  %-24s %6d  %-24s  %-24s  %s%n", hold.owner(), hold.fencingToken(),
                        ReplyEncoder.formatTime(hold.acquiredAt()), ReplyEncoder.formatTime(hold.until()),
                        (hold.end() == Hold.End.HELD ? "held (expires then)" : hold.end().wireName())
                                + (hold.takenOver() ? "; took over an expired lease" : "")
                                + hold.waited().map(w -> "; waited " + w.toMillis() + " ms in the queue").orElse("")
                                + (hold.exclusive() ? "" : "; shared, permit " + hold.permit())
                                + hold.value().map(value -> "; published " + value).orElse("")));
            }
        }
        return out.toString();
    }
}
