package dev.lockstep.bench;

import static dev.lockstep.bench.TableCells.header;
import static dev.lockstep.bench.TableCells.ms;
import static dev.lockstep.bench.TableCells.ratio;
import static dev.lockstep.bench.TableCells.rows;
import static dev.lockstep.bench.TableCells.system;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.stream.StreamSupport;

/**
 * The tables made from {@code bench --peers}'s files: {@code peers.json} (one caller, the curve of
 * callers, CPU per pair) and {@code peers-contended.json} (hand-overs on one resource).
 */
final class PeerTables {

    private PeerTables() {
    }

    /** One row per system: one caller's acquire and acquire-release pair, and the acquire p50 against echo's. */
    static String oneCaller(JsonNode peers) {
        List<JsonNode> systems = rows(peers);
        Optional<JsonNode> echo = echo(systems);
        List<String> lines = new ArrayList<>(header(List.of("system", "acquire p50", "acquire p99", "pair p50",
                "pair p99", "acquire p50 × echo's")));
        for (JsonNode system : systems) {
            lines.add("| " + system(system) + " | " + ms(system, "acquire_p50_ms", 2) + " | "
                    + ms(system, "acquire_p99_ms", 2) + " | " + ms(system, "pair_p50_ms", 2) + " | "
                    + ms(system, "pair_p99_ms", 2) + " | " + echo.map(e -> ratio(system.path("acquire_p50_ms").asDouble(),
                            e.path("acquire_p50_ms").asDouble())).orElse("–") + " |");
        }
        return String.join("\n", lines);
    }

    /** One row per system, a column per count of callers: pairs per second and the pair's p99. */
    static String curve(JsonNode peers) {
        return byCallers(peers, (system, p) -> String.format(Locale.ROOT, "%,.0f/s · p99 %,.1f ms", p.path("pairs_per_s").asDouble(),
                p.path("pair_p99_ms").asDouble()));
    }

    /** One row per system, a column per count of callers: the CPU milliseconds spent per pair, and against echo's. */
    static String cpu(JsonNode peers) {
        Optional<JsonNode> echo = echo(rows(peers));
        return byCallers(peers, (system, p) -> {
            if (!p.path("cpu_ms_per_pair").isNumber()) {
                return "–";
            }
            double cpu = p.path("cpu_ms_per_pair").asDouble();
            Optional<Double> echoCpu = echo.filter(e -> e != system).flatMap(e -> point(e, p.path("callers").asInt()))
                    .filter(e -> e.path("cpu_ms_per_pair").isNumber()).map(e -> e.path("cpu_ms_per_pair").asDouble());
            return String.format(Locale.ROOT, "%.2f ms", cpu) + echoCpu.map(e -> " (" + ratio(cpu, e) + ")").orElse("");
        });
    }

    /** @param cell a system's cell, from the system and its point of the curve */
    private static String byCallers(JsonNode peers, BiFunction<JsonNode, JsonNode, String> cell) {
        List<JsonNode> systems = rows(peers);
        List<Integer> counts = systems.stream().flatMap(s -> StreamSupport.stream(s.path("curve").spliterator(), false))
                .map(point -> point.path("callers").asInt()).distinct().sorted().toList();
        List<String> columns = new ArrayList<>(List.of("system"));
        counts.forEach(callers -> columns.add(String.format(Locale.ROOT, "%,d caller%s", callers, callers == 1 ? "" : "s")));
        List<String> lines = new ArrayList<>(header(columns));
        for (JsonNode system : systems) {
            StringBuilder line = new StringBuilder("| " + system(system) + " |");
            for (int callers : counts) {
                line.append(' ').append(point(system, callers).map(p -> cell.apply(system, p)).orElse("–")).append(" |");
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }

    /** The echo row, the yardstick of the ratios. */
    private static Optional<JsonNode> echo(List<JsonNode> systems) {
        return systems.stream().filter(s -> s.path("peer").asText().equals("echo")).findFirst();
    }

    private static Optional<JsonNode> point(JsonNode system, int callers) {
        return StreamSupport.stream(system.path("curve").spliterator(), false)
                .filter(p -> p.path("callers").asInt() == callers).findFirst();
    }

    /**
     * One row per system of a {@code peers-contended.json}, for each caller count on the one
     * resource: hand-overs per second, hand-over p50 and p99, grants out of order.
     */
    static String contended(JsonNode contended) {
        List<JsonNode> all = rows(contended);
        List<Integer> counts = all.stream().map(r -> r.path("callers").asInt()).distinct().sorted().toList();
        List<String> columns = new ArrayList<>(List.of("system"));
        counts.forEach(callers -> columns.addAll(List.of(callers + " callers: hand-overs/s", "p50", "p99", "out of order")));
        List<String> lines = new ArrayList<>(header(columns));
        for (String peer : all.stream().map(r -> r.path("peer").asText()).distinct().toList()) {
            StringBuilder line = new StringBuilder("| " + TableCells.name(peer) + " |");
            for (int callers : counts) {
                Optional<JsonNode> row = all.stream().filter(r -> r.path("peer").asText().equals(peer)
                        && r.path("callers").asInt() == callers).findFirst();
                if (row.isEmpty()) {
                    line.append(" – | – | – | – |");
                    continue;
                }
                JsonNode r = row.get();
                long outOfOrder = r.path("out_of_order").asLong();
                line.append(String.format(Locale.ROOT, " %,.0f |", r.path("hand_overs_per_s").asDouble()))
                        .append(r.path("hand_over_p50_ms").isNumber() ? " " + ms(r, "hand_over_p50_ms", 1) + " |" : " – |")
                        .append(r.path("hand_over_p99_ms").isNumber() ? " " + ms(r, "hand_over_p99_ms", 1) + " |" : " – |")
                        .append(outOfOrder < 0 ? " – |" : String.format(Locale.ROOT, " %,d of %,d |", outOfOrder,
                                r.path("grants").asLong()));
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }
}
