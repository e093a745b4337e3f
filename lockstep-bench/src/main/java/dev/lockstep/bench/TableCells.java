package dev.lockstep.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.StreamSupport;

/** What the tables of docs/benchmarks.md share: systems' names, cells, and the rows of a results file. */
final class TableCells {

    private static final Map<String, String> SYSTEMS = Map.of("lockstep", "lockstep", "echo", "echo (not a lock)",
            "etcd", "etcd", "zookeeper", "ZooKeeper", "redis", "Redis");

    private TableCells() {
    }

    /** A results file's rows: its {@code results}, or the whole file when it is the bare list of older runs. */
    static List<JsonNode> rows(JsonNode file) {
        JsonNode rows = file.isArray() ? file : file.path("results");
        return StreamSupport.stream(rows.spliterator(), false).toList();
    }

    /** The system of a row of {@code bench --peers} as the tables name it. */
    static String system(JsonNode row) {
        return name(row.path("peer").asText());
    }

    /** A system of {@code bench --peers}, by its name in the results, as the tables name it. */
    static String name(String peer) {
        return SYSTEMS.getOrDefault(peer, peer);
    }

    static String ms(JsonNode node, String field, int decimals) {
        return String.format(Locale.ROOT, "%,." + decimals + "f ms", node.path(field).asDouble());
    }

    static String ratio(double value, double baseline) {
        return String.format(Locale.ROOT, "%,.2f×", value / baseline);
    }

    /** The header and the rule of a table whose first column is left-aligned and the others numbers. */
    static List<String> header(List<String> columns) {
        return List.of("| " + String.join(" | ", columns) + " |",
                "| --- |" + " ---: |".repeat(columns.size() - 1));
    }
}
