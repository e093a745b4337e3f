package dev.lockstep.bench;

import static dev.lockstep.bench.TableCells.header;
import static dev.lockstep.bench.TableCells.ratio;
import static dev.lockstep.bench.TableCells.rows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The tables made from {@code bench}'s {@code results.json}: the maximum throughput, and the fixed loads. */
final class ThroughputTables {

    private ThroughputTables() {
    }

    /** One row per mode, a column per scenario: the maximum commands per second, and against echo's. */
    static String maximum(JsonNode results) {
        List<JsonNode> all = rows(results);
        List<String> scenarios = all.stream().map(r -> r.path("scenario").asText()).distinct().toList();
        List<String> columns = new ArrayList<>(List.of("mode"));
        scenarios.forEach(scenario -> columns.addAll(List.of(scenario + ": commands/s", "× echo's")));
        List<String> lines = new ArrayList<>(header(columns));
        for (BenchMode mode : BenchMode.values()) {
            if (scenarios.stream().allMatch(s -> find(all, s, mode.wireName(), Optional.empty()).isEmpty())) {
                continue;
            }
            StringBuilder line = new StringBuilder("| " + mode.wireName() + " |");
            for (String scenario : scenarios) {
                Optional<Double> max = rate(all, scenario, mode.wireName());
                Optional<Double> echo = rate(all, scenario, "echo");
                line.append(max.map(v -> String.format(Locale.ROOT, " %,.0f |", v)).orElse(" – |"))
                        .append(max.isPresent() && echo.isPresent() ? " " + ratio(max.get(), echo.get()) + " |" : " – |");
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }

    /** One row per mode of the first scenario, a column per fixed load: p50 and p99, and the p99 against echo's. */
    static String fixed(JsonNode results) {
        List<JsonNode> all = rows(results);
        String scenario = all.get(0).path("scenario").asText();
        List<Integer> loads = all.stream().filter(r -> r.path("scenario").asText().equals(scenario))
                .filter(r -> !r.path("offered_per_s").isNull()).map(r -> r.path("offered_per_s").asInt())
                .distinct().sorted().toList();
        List<String> columns = new ArrayList<>(List.of("mode (" + scenario + ")"));
        loads.forEach(load -> columns.add(String.format(Locale.ROOT, "%,d/s: p50 / p99", load)));
        List<String> lines = new ArrayList<>(header(columns));
        for (BenchMode mode : BenchMode.values()) {
            if (loads.stream().allMatch(load -> find(all, scenario, mode.wireName(), Optional.of(load)).isEmpty())) {
                continue;
            }
            StringBuilder line = new StringBuilder("| " + mode.wireName() + " |");
            for (int load : loads) {
                Optional<JsonNode> row = find(all, scenario, mode.wireName(), Optional.of(load));
                Optional<JsonNode> echo = find(all, scenario, "echo", Optional.of(load));
                line.append(row.map(r -> String.format(Locale.ROOT, " %,.1f / %,.1f ms%s |", r.path("p50_ms").asDouble(),
                        r.path("p99_ms").asDouble(), echo.filter(e -> !mode.wireName().equals("echo"))
                                .map(e -> " (" + ratio(r.path("p99_ms").asDouble(), e.path("p99_ms").asDouble()) + ")")
                                .orElse(""))).orElse(" – |"));
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }

    private static Optional<Double> rate(List<JsonNode> rows, String scenario, String mode) {
        return find(rows, scenario, mode, Optional.empty()).map(r -> r.path("commands_per_s").asDouble());
    }

    private static Optional<JsonNode> find(List<JsonNode> rows, String scenario, String mode, Optional<Integer> load) {
        return rows.stream().filter(r -> r.path("scenario").asText().equals(scenario))
                .filter(r -> r.path("mode").asText().equals(mode))
                .filter(r -> load.map(x -> r.path("offered_per_s").asInt() == x).orElse(r.path("offered_per_s").isNull()))
                .findFirst();
    }
}
