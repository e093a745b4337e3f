package dev.lockstep.topics;

import dev.lockstep.protocol.TopicNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/** Reads topic definitions: the {@code topics/} directory format described in its README. */
public final class TopicSpecs {

    /** The definitions packaged into the jar from {@code topics/}, in the order they are applied. */
    public static final List<String> BUILT_IN = List.of("lock.commands", "lock.replies", "lock.commands.dlq", "lock.events");

    private static final String PREFIX = "config.";

    private TopicSpecs() {
    }

    public static List<TopicSpec> builtIn() {
        List<TopicSpec> specs = new ArrayList<>();
        for (String name : BUILT_IN) {
            String resource = "/lockstep/topics/" + name + ".properties";
            try (InputStream in = TopicSpecs.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("the jar lacks " + resource + "; rebuild it with mvn package");
                }
                specs.add(parse(resource, load(new InputStreamReader(in, StandardCharsets.UTF_8))));
            } catch (IOException e) {
                throw new UncheckedIOException("reading " + resource, e);
            }
        }
        return specs;
    }

    /**
     * The built-in definitions under other names (commands, replies, dead letters, events), with another
     * partition count and replication factor: for benchmarks and tests that need fresh topics.
     */
    public static List<TopicSpec> renamed(TopicNames names, int partitions, short replication) {
        List<TopicSpec> builtIn = builtIn();
        return List.of(builtIn.get(0).withName(names.commands()), builtIn.get(1).withName(names.replies()),
                        builtIn.get(2).withName(names.deadLetters()), builtIn.get(3).withName(names.events())).stream()
                .map(s -> s.withReplicationFactor(replication).withPartitions(partitions))
                .toList();
    }

    /**
     * The definitions with the protocol's topics under {@code names}: the one named like a built-in
     * topic (for example {@code lock.replies}) takes the name the deployment gives it (for example
     * {@code lock.replies.billing}); any other definition is kept as it is.
     */
    public static List<TopicSpec> named(List<TopicSpec> specs, TopicNames names) {
        Map<String, String> renames = Map.of(BUILT_IN.get(0), names.commands(), BUILT_IN.get(1), names.replies(),
                BUILT_IN.get(2), names.deadLetters(), BUILT_IN.get(3), names.events());
        return specs.stream().map(s -> s.withName(renames.getOrDefault(s.name(), s.name()))).toList();
    }

    /** Every {@code *.properties} file of {@code dir}, sorted by file name. */
    public static List<TopicSpec> fromDirectory(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("--dir " + dir + " is not a directory");
        }
        try (Stream<Path> files = Files.list(dir)) {
            List<TopicSpec> specs = new ArrayList<>();
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".properties")).sorted().toList()) {
                try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                    specs.add(parse(file.toString(), load(reader)));
                }
            }
            if (specs.isEmpty()) {
                throw new IllegalArgumentException("no *.properties topic definitions in " + dir);
            }
            return specs;
        } catch (IOException e) {
            throw new UncheckedIOException("reading topic definitions from " + dir, e);
        }
    }

    static TopicSpec parse(String source, Properties props) {
        Map<String, String> configs = new HashMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith(PREFIX)) {
                configs.put(key.substring(PREFIX.length()), props.getProperty(key).strip());
            } else if (!List.of("name", "partitions", "replication.factor").contains(key)) {
                throw new IllegalArgumentException(source + ": unknown key '" + key + "' (topic configs start with "
                        + PREFIX + ")");
            }
        }
        try {
            return new TopicSpec(required(source, props, "name"),
                    Integer.parseInt(required(source, props, "partitions")),
                    Short.parseShort(required(source, props, "replication.factor")), configs);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
        }
    }

    private static String required(String source, Properties props, String key) {
        String value = props.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(source + ": '" + key + "' is required");
        }
        return value.strip();
    }

    private static Properties load(Reader reader) throws IOException {
        Properties props = new Properties();
        props.load(reader);
        return props;
    }
}
