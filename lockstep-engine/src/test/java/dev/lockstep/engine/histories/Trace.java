package dev.lockstep.engine.histories;

import dev.lockstep.core.Command;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.LeaseEvent;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One record of a generated history as a report shows it: what it was, and what it published. */
final class Trace {

    private Trace() {
    }

    static String line(HistoryRun.Applied applied, Map<Long, Command> commands) {
        Inbound record = applied.record();
        String at = "+" + Duration.between(HistoryRun.T0, record.logAppendTime().orElseThrow()).toMillis() / 1000.0
                + " s";
        String what;
        if (commands.containsKey(record.offset())) {
            what = new String(record.value(), StandardCharsets.UTF_8);
        } else if (record.headers().has(HandOver.HEADER)) {
            what = "hand-over of " + new String(record.key(), StandardCharsets.UTF_8) + " ("
                    + new String(record.headers().lastValue(HandOver.HEADER).orElseThrow(), StandardCharsets.UTF_8)
                    + ")";
        } else {
            what = "tick";
        }
        List<String> out = new ArrayList<>();
        for (Outbound published : applied.step().all()) {
            if (published instanceof Outbound.Event event) {
                LeaseEvent e = EventCodec.decode(event.value());
                out.add(e.kind().name().toLowerCase() + " " + e.resource() + " " + e.owner()
                        + (e.fencingToken() > 0 ? " token " + e.fencingToken() : "")
                        + e.expiresAt().map(end -> " until +" + Duration.between(HistoryRun.T0, end).toSeconds() + " s")
                                .orElse("")
                        + (e.share().exclusive() ? "" : " shared/" + e.share().limit() + " permit " + e.permit())
                        + e.requestId().map(id -> " (" + id + ")").orElse(""));
            } else if (published instanceof Outbound.ReplyRecord reply) {
                out.add("reply " + new String(reply.value(), StandardCharsets.UTF_8)
                        .replaceAll(",\"(acquired_at|expires_at)\":\"[^\"]*\"", ""));
            } else if (published instanceof Outbound.HandOver handOver) {
                out.add("asks a hand-over " + handOver.index() + "/" + handOver.count() + " of " + handOver.resource());
            } else {
                out.add(published.toString());
            }
        }
        StringBuilder line = new StringBuilder(String.format("  @%-3d %-8s %s%n", record.offset(), at, what));
        out.forEach(o -> line.append("                -> ").append(o).append(System.lineSeparator()));
        return line.toString();
    }
}
