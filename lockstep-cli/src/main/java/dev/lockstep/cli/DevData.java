package dev.lockstep.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * What {@code lockstep dev} keeps in its data directory: the broker's log ({@code kafka/}), the
 * embedded database ({@code postgres/}, with {@code postgres.log}) and the PostgreSQL binaries it
 * runs ({@code postgres-binaries/}, unpacked once). Together, so that a restart finds the broker
 * and the database where they were: the log is the truth, and a database that remembers records
 * the broker forgot would be a projection of a log that no longer exists.
 */
record DevData(Path root) {

    static Path defaultDir() {
        return Path.of(System.getProperty("user.home"), ".lockstep", "dev");
    }

    /** The layout under {@code root}; with {@code fresh}, what earlier runs left is deleted first (not the binaries). */
    static DevData at(Path root, boolean fresh) {
        DevData data = new DevData(root.toAbsolutePath());
        try {
            if (fresh) {
                for (Path kept : List.of(data.kafka(), data.postgres(), root.resolve("postgres.log"))) {
                    delete(kept);
                }
            }
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the data directory " + root + " (choose another --data-dir)", e);
        }
        return data;
    }

    Path kafka() {
        return root.resolve("kafka");
    }

    Path postgres() {
        return root.resolve("postgres");
    }

    Path postgresBinaries() {
        return root.resolve("postgres-binaries");
    }

    private static void delete(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(path)) {
            for (Path each : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(each);
            }
        }
    }
}
