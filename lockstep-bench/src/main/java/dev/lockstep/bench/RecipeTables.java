package dev.lockstep.bench;

import static dev.lockstep.bench.TableCells.header;
import static dev.lockstep.bench.TableCells.ms;
import static dev.lockstep.bench.TableCells.name;
import static dev.lockstep.bench.TableCells.ratio;
import static dev.lockstep.bench.TableCells.rows;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.StreamSupport;

/**
 * The tables made from {@code bench --peers}'s {@code peers-recipes.json}: a semaphore of four
 * under many callers, and leader failover, each system through its own client's recipe, with
 * lockstep's figure from the same run as the baseline.
 */
final class RecipeTables {

    private RecipeTables() {
    }

    /** One row per system, a column group per count of callers: grants per second, the acquire's p50 and p99. */
    static String semaphore(JsonNode recipes) {
        List<JsonNode> systems = rows(recipes);
        List<Integer> counts = systems.stream().flatMap(s -> each(s.path("semaphore")).stream())
                .map(r -> r.path("callers").asInt()).distinct().sorted().toList();
        List<String> columns = new ArrayList<>(List.of("system"));
        counts.forEach(callers -> columns.addAll(List.of(callers + " callers: grants/s", "× lockstep's", "acquire p50",
                "p99")));
        List<String> lines = new ArrayList<>(header(columns));
        for (JsonNode system : systems) {
            StringBuilder line = new StringBuilder("| " + name(system.path("peer").asText()) + " |");
            for (int callers : counts) {
                Optional<JsonNode> row = at(system, callers);
                Optional<JsonNode> base = systems.stream().filter(s -> s.path("peer").asText().equals("lockstep"))
                        .findFirst().flatMap(s -> at(s, callers));
                if (row.isEmpty()) {
                    line.append(" – | – | – | – |");
                    continue;
                }
                double grants = row.get().path("grants_per_s").asDouble();
                line.append(String.format(Locale.ROOT, " %,.0f |", grants))
                        .append(base.map(b -> " " + ratio(grants, b.path("grants_per_s").asDouble()) + " |").orElse(" – |"))
                        .append(" ").append(ms(row.get(), "acquire_p50_ms", 1)).append(" |")
                        .append(" ").append(ms(row.get(), "acquire_p99_ms", 1)).append(" |");
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }

    /** One row per system: the failover's p50, p99 and maximum, and its p50 against lockstep's. */
    static String failover(JsonNode recipes) {
        List<JsonNode> systems = rows(recipes);
        Optional<JsonNode> base = systems.stream().filter(s -> s.path("peer").asText().equals("lockstep"))
                .flatMap(s -> each(s.path("failover")).stream()).findFirst();
        List<String> lines = new ArrayList<>(header(List.of("system", "rounds", "failover p50", "p99", "max",
                "p50 × lockstep's")));
        for (JsonNode system : systems) {
            List<JsonNode> failover = each(system.path("failover"));
            if (failover.isEmpty()) {
                lines.add("| " + name(system.path("peer").asText()) + " | – | – | – | – | – |");
                continue;
            }
            JsonNode f = failover.get(0);
            lines.add("| " + name(system.path("peer").asText()) + " | " + f.path("rounds").asInt() + " | "
                    + ms(f, "p50_ms", 2) + " | " + ms(f, "p99_ms", 2) + " | " + ms(f, "max_ms", 2) + " | "
                    + base.map(b -> ratio(f.path("p50_ms").asDouble(), b.path("p50_ms").asDouble())).orElse("–") + " |");
        }
        return String.join("\n", lines);
    }

    private static Optional<JsonNode> at(JsonNode system, int callers) {
        return each(system.path("semaphore")).stream().filter(r -> r.path("callers").asInt() == callers).findFirst();
    }

    private static List<JsonNode> each(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).toList();
    }
}
