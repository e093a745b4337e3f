package dev.lockstep.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;

/**
 * The tables of docs/benchmarks.md, made from the result files a benchmark writes, so that the
 * page shows what the files say: {@code peers} from {@code bench --peers}'s {@code peers.json},
 * {@code curve} from the {@code curve} of each system in a {@code peers.json} ({@code --callers} a list),
 * {@code contended} from its {@code peers-contended.json},
 * {@code modes} from {@code bench}'s {@code results.json}. Each such table in the page follows a
 * comment {@code <!-- table: KIND from FILE -->} (FILE relative to the page). {@link #main} makes
 * the page's tables again, in place; {@code BenchmarkTablesTest} fails when the page differs.
 *
 * <pre>{@code
 * java -cp target/lockstep.jar dev.lockstep.bench.BenchmarkTables docs/benchmarks.md
 * }</pre>
 */
public final class BenchmarkTables {

    /** A kind of table, by the name the page's comment uses. */
    public static final Map<String, Function<JsonNode, String>> KINDS = Map.of("peers", BenchmarkTables::peers,
            "curve", BenchmarkTables::curve, "contended", BenchmarkTables::contended, "modes", BenchmarkTables::modes);

    private static final Map<String, String> SYSTEMS = Map.of("lockstep", "lockstep", "echo", "echo (not a lock)",
            "etcd", "etcd", "zookeeper", "ZooKeeper", "redis", "Redis");

    private static final Pattern MARKER = Pattern.compile("<!-- table: (\\w+) from (\\S+) -->");

    private BenchmarkTables() {
    }

    /** Makes every marked table of the pages named again from its file, in place. */
    public static void main(String[] pages) throws IOException {
        for (String page : pages) {
            Path path = Path.of(page);
            Files.writeString(path, remade(path), StandardCharsets.UTF_8);
        }
    }

    /** The page with every marked table made again from its file. */
    public static String remade(Path page) throws IOException {
        List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
        List<String> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            out.add(lines.get(i));
            Matcher marker = MARKER.matcher(lines.get(i));
            if (!marker.find()) {
                continue;
            }
            Function<JsonNode, String> kind = KINDS.get(marker.group(1));
            if (kind == null) {
                throw new IllegalArgumentException(page + ": no kind of table " + marker.group(1) + " (" + KINDS.keySet() + ")");
            }
            out.addAll(kind.apply(read(page.resolveSibling(marker.group(2)))).lines().toList());
            while (i + 1 < lines.size() && lines.get(i + 1).startsWith("|")) {
                i++; // the table as it was
            }
        }
        return String.join("\n", out) + "\n";
    }

    public static JsonNode read(Path file) {
        try {
            return new ObjectMapper().readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /**
     * One row per system of a {@code peers.json}: one caller's acquire and pair, then 16 callers'
     * pairs (the curve's point of 16 callers where the run measured a curve).
     */
    public static String peers(JsonNode peers) {
        List<String> rows = new ArrayList<>(List.of(
                "| system | acquire p50 | acquire p99 | pair p50 | pair p99 | 16 callers: pairs/s | pair p50 | pair p99 |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"));
        for (JsonNode system : peers) {
            String name = system.path("peer").asText();
            Optional<JsonNode> sixteen = StreamSupport.stream(system.path("curve").spliterator(), false)
                    .filter(point -> point.path("callers").asInt() == 16).findFirst();
            double pairsPerS = sixteen.map(p -> p.path("pairs_per_s")).orElse(system.path("concurrent_pairs_per_s"))
                    .asDouble();
            String p50 = sixteen.map(p -> ms(p, "pair_p50_ms", 1)).orElse(ms(system, "concurrent_pair_p50_ms", 1));
            String p99 = sixteen.map(p -> ms(p, "pair_p99_ms", 1)).orElse(ms(system, "concurrent_pair_p99_ms", 1));
            rows.add("| " + SYSTEMS.getOrDefault(name, name) + " | " + ms(system, "acquire_p50_ms", 2) + " | "
                    + ms(system, "acquire_p99_ms", 2) + " | " + ms(system, "pair_p50_ms", 2) + " | "
                    + ms(system, "pair_p99_ms", 2) + " | " + String.format(Locale.ROOT, "%,.0f", pairsPerS) + " | "
                    + p50 + " | " + p99 + " |");
        }
        return String.join("\n", rows);
    }

    /**
     * One row per system of a {@code peers.json} measured with several counts of callers, a column
     * per count: pairs per second, the pair's p99 and the CPU milliseconds spent per pair.
     */
    public static String curve(JsonNode peers) {
        List<JsonNode> systems = StreamSupport.stream(peers.spliterator(), false).toList();
        List<Integer> counts = systems.stream().flatMap(s -> StreamSupport.stream(s.path("curve").spliterator(), false))
                .map(point -> point.path("callers").asInt()).distinct().sorted().toList();
        StringBuilder header = new StringBuilder("| system |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (int callers : counts) {
            header.append(String.format(Locale.ROOT, " %,d caller%s |", callers, callers == 1 ? "" : "s"));
            rule.append(" ---: |");
        }
        List<String> lines = new ArrayList<>(List.of(header.toString(), rule.toString()));
        for (JsonNode system : systems) {
            String name = system.path("peer").asText();
            StringBuilder line = new StringBuilder("| " + SYSTEMS.getOrDefault(name, name) + " |");
            for (int callers : counts) {
                Optional<JsonNode> point = StreamSupport.stream(system.path("curve").spliterator(), false)
                        .filter(p -> p.path("callers").asInt() == callers).findFirst();
                line.append(point.map(p -> String.format(Locale.ROOT, " %,.0f/s · p99 %,.1f ms · %s |",
                        p.path("pairs_per_s").asDouble(), p.path("pair_p99_ms").asDouble(),
                        p.path("cpu_ms_per_pair").isNumber()
                                ? String.format(Locale.ROOT, "%.2f ms CPU", p.path("cpu_ms_per_pair").asDouble())
                                : "CPU –")).orElse(" – |"));
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }

    /**
     * One row per system of a {@code peers-contended.json}, for each caller count on the one
     * resource: hand-overs per second, hand-over p50 and p99, grants out of order.
     */
    public static String contended(JsonNode contended) {
        List<JsonNode> all = StreamSupport.stream(contended.spliterator(), false).toList();
        List<Integer> counts = all.stream().map(r -> r.path("callers").asInt()).distinct().sorted().toList();
        StringBuilder header = new StringBuilder("| system |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (int callers : counts) {
            header.append(" ").append(callers).append(" callers: hand-overs/s | p50 | p99 | out of order |");
            rule.append(" ---: | ---: | ---: | ---: |");
        }
        List<String> lines = new ArrayList<>(List.of(header.toString(), rule.toString()));
        for (String peer : all.stream().map(r -> r.path("peer").asText()).distinct().toList()) {
            StringBuilder line = new StringBuilder("| " + SYSTEMS.getOrDefault(peer, peer) + " |");
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

    /**
     * One row per mode of a {@code results.json}'s first scenario: its maximum and its p99 at each
     * fixed load, each against echo's of the same run.
     */
    public static String modes(JsonNode results) {
        List<JsonNode> all = StreamSupport.stream(results.spliterator(), false).toList();
        String scenario = all.get(0).path("scenario").asText();
        List<JsonNode> rows = all.stream().filter(r -> r.path("scenario").asText().equals(scenario)).toList();
        List<Integer> rates = rows.stream().filter(r -> !r.path("offered_per_s").isNull())
                .map(r -> r.path("offered_per_s").asInt()).distinct().sorted().toList();
        StringBuilder header = new StringBuilder("| mode (" + scenario + ") | maximum commands/s | × echo's |");
        StringBuilder rule = new StringBuilder("| --- | ---: | ---: |");
        for (int rate : rates) {
            header.append(String.format(Locale.ROOT, " p99 at %,d/s | × echo's |", rate));
            rule.append(" ---: | ---: |");
        }
        List<String> lines = new ArrayList<>(List.of(header.toString(), rule.toString()));
        for (BenchMode mode : BenchMode.values()) {
            Optional<JsonNode> max = find(rows, mode.wireName(), Optional.empty());
            if (max.isEmpty()) {
                continue;
            }
            double echoMax = find(rows, "echo", Optional.empty()).map(r -> r.path("commands_per_s").asDouble())
                    .orElse(Double.NaN);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "| %s | %,.0f | %.2f× |", mode.wireName(),
                    max.get().path("commands_per_s").asDouble(), max.get().path("commands_per_s").asDouble() / echoMax));
            for (int rate : rates) {
                Optional<Double> p99 = find(rows, mode.wireName(), Optional.of(rate)).map(r -> r.path("p99_ms").asDouble());
                Optional<Double> echo = find(rows, "echo", Optional.of(rate)).map(r -> r.path("p99_ms").asDouble());
                line.append(p99.map(v -> String.format(Locale.ROOT, " %,.1f ms |", v)).orElse(" – |"));
                line.append(p99.isPresent() && echo.isPresent()
                        ? String.format(Locale.ROOT, " %,.1f× |", p99.get() / echo.get()) : " – |");
            }
            lines.add(line.toString());
        }
        return String.join("\n", lines);
    }

    private static Optional<JsonNode> find(List<JsonNode> rows, String mode, Optional<Integer> rate) {
        return rows.stream().filter(r -> r.path("mode").asText().equals(mode))
                .filter(r -> rate.map(x -> r.path("offered_per_s").asInt() == x).orElse(r.path("offered_per_s").isNull()))
                .findFirst();
    }

    private static String ms(JsonNode node, String field, int decimals) {
        return String.format(Locale.ROOT, "%." + decimals + "f ms", node.path(field).asDouble());
    }
}
