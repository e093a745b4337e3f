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
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tables of docs/benchmarks.md, made from the result files a benchmark writes, so that the
 * page shows what the files say: {@code one-caller}, {@code curve} and {@code cpu} from
 * {@code bench --peers}'s {@code peers.json} (the last two from each system's {@code curve}),
 * {@code contended} from its {@code peers-contended.json}, {@code semaphore} and {@code failover}
 * from its {@code peers-recipes.json}, {@code maximum} and {@code fixed} from
 * {@code bench}'s {@code results.json}. Each such table in the page follows a comment
 * {@code <!-- table: KIND from FILE -->} (FILE relative to the page), and a caption saying when and
 * on what machine the file was measured, when the file says so ({@link RunInfo}). {@link #main}
 * makes the page's tables again, in place; {@code BenchmarkTablesTest} fails when the page differs.
 *
 * <pre>{@code
 * java -cp target/lockstep.jar dev.lockstep.bench.BenchmarkTables docs/benchmarks.md
 * }</pre>
 */
public final class BenchmarkTables {

    /** A kind of table, by the name the page's comment uses. */
    public static final Map<String, Function<JsonNode, String>> KINDS = Map.of("one-caller", PeerTables::oneCaller,
            "curve", PeerTables::curve, "cpu", PeerTables::cpu, "contended", PeerTables::contended,
            "semaphore", RecipeTables::semaphore, "failover", RecipeTables::failover,
            "maximum", ThroughputTables::maximum, "fixed", ThroughputTables::fixed);

    private static final String CAPTION = "Measured ";

    private static final Pattern MARKER = Pattern.compile("<!-- table: ([\\w-]+) from (\\S+) -->");

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
            JsonNode file = read(page.resolveSibling(marker.group(2)));
            caption(file).ifPresent(caption -> out.addAll(List.of(caption, "")));
            out.addAll(kind.apply(file).lines().toList());
            // The caption and the table as they were.
            if (i + 2 < lines.size() && lines.get(i + 1).startsWith(CAPTION) && lines.get(i + 2).isEmpty()) {
                i += 2;
            }
            while (i + 1 < lines.size() && lines.get(i + 1).startsWith("|")) {
                i++;
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

    /** The caption of a table made from {@code file}: when and where it was measured, when the file says. */
    static Optional<String> caption(JsonNode file) {
        return file.has("run") ? Optional.of(CAPTION + new ObjectMapper().convertValue(file.path("run"), RunInfo.class)
                .describe() + ".") : Optional.empty();
    }
}
