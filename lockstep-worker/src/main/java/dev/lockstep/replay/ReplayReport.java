package dev.lockstep.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;

/**
 * What a replay found.
 *
 * @param records command records replayed
 * @param checkpointsCompared recorded checkpoints compared with the state the log leaves at them
 * @param startedFrom the partitions replayed from a checkpoint, because the log no longer holds their
 *     beginning, each with where it started (records before it are not replayed, like those before the
 *     log's start)
 * @param unverifiable why parts of the log could not be replayed (each names its partition)
 */
public record ReplayReport(long records, int repliesCompared, int eventsCompared, int partitionsCompared,
        int checkpointsCompared, List<String> startedFrom, List<Divergence> divergences, List<String> unverifiable) {

    /** Exit codes of {@code lockstep replay}. */
    public static final int REPRODUCED = 0;
    public static final int DIVERGED = 1;
    public static final int CANNOT_VERIFY = 2;

    public ReplayReport {
        startedFrom = List.copyOf(startedFrom);
        divergences = List.copyOf(divergences);
        unverifiable = List.copyOf(unverifiable);
    }

    public int exitCode() {
        if (!divergences.isEmpty()) {
            return DIVERGED;
        }
        return unverifiable.isEmpty() ? REPRODUCED : CANNOT_VERIFY;
    }

    public String text() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("replayed %,d command records; compared %,d replies, %,d events, %,d checkpoints, the "
                + "database rows of %d partitions: %d divergences%n", records, repliesCompared, eventsCompared,
                checkpointsCompared, partitionsCompared, divergences.size()));
        startedFrom.forEach(start -> out.append("replayed from a checkpoint: ").append(start).append('\n'));
        unverifiable.forEach(reason -> out.append("cannot verify: ").append(reason).append('\n'));
        for (Divergence d : divergences) {
            out.append(d.kind()).append(' ').append(d.source());
            d.requestId().ifPresent(id -> out.append(" request ").append(id));
            out.append("\n  expected: ").append(d.expected()).append("\n  found:    ").append(d.found()).append('\n');
        }
        return out.toString();
    }

    public String json() {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode root = mapper.createObjectNode();
        root.put("records", records);
        root.put("replies_compared", repliesCompared);
        root.put("events_compared", eventsCompared);
        root.put("partitions_compared", partitionsCompared);
        root.put("checkpoints_compared", checkpointsCompared);
        ArrayNode starts = root.putArray("started_from_checkpoints");
        startedFrom.forEach(starts::add);
        root.put("outcome", switch (exitCode()) {
            case REPRODUCED -> "reproduced";
            case DIVERGED -> "diverged";
            default -> "cannot_verify";
        });
        ArrayNode reasons = root.putArray("unverifiable");
        unverifiable.forEach(reasons::add);
        ArrayNode list = root.putArray("divergences");
        for (Divergence d : divergences) {
            ObjectNode node = list.addObject();
            node.put("kind", d.kind().name().toLowerCase(Locale.ROOT));
            node.put("source", d.source());
            d.requestId().ifPresentOrElse(id -> node.put("request_id", id), () -> node.putNull("request_id"));
            node.put("expected", d.expected());
            node.put("found", d.found());
        }
        return root.toString();
    }
}
