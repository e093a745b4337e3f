package dev.lockstep.cli;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Properties;

/**
 * Where a running {@code lockstep dev} can be reached: its broker, its database and its HTTP API,
 * written to {@code connection.properties} in its data directory while it runs (readable by its
 * user only: the URL may carry a password) and deleted as it stops. Commands given no connection
 * flags use it, so {@code lockstep locks} or {@code replay} after {@code lockstep dev} read dev's
 * database, not a server that happens to listen on the default port. A file whose process is gone
 * (dev was killed) is ignored.
 */
record DevConnection(Path file, long pid, String bootstrapServers, Database database, Optional<String> http)
        implements AutoCloseable {

    /** dev's database, as the CLI's database options would name it. */
    record Database(String jdbcUrl, Optional<String> user, Optional<String> password) {
    }

    static final String FILE_NAME = "connection.properties";

    /** The file of the dev whose data directory is {@code dataDir}. */
    static Path fileIn(Path dataDir) {
        return dataDir.toAbsolutePath().resolve(FILE_NAME);
    }

    /** Writes the file for this process; {@link #close()} deletes it. */
    static DevConnection write(Path dataDir, String bootstrapServers, Database database, Optional<String> http) {
        DevConnection connection = new DevConnection(fileIn(dataDir), ProcessHandle.current().pid(), bootstrapServers,
                database, http);
        Properties props = new Properties();
        props.setProperty("pid", Long.toString(connection.pid));
        props.setProperty("bootstrap-servers", bootstrapServers);
        props.setProperty("db-url", database.jdbcUrl());
        database.user().ifPresent(user -> props.setProperty("db-user", user));
        database.password().ifPresent(password -> props.setProperty("db-password", password));
        http.ifPresent(url -> props.setProperty("http", url));
        Path file = connection.file;
        Path temporary = file.resolveSibling(FILE_NAME + "." + connection.pid);
        try {
            Files.deleteIfExists(temporary);
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
                props.store(writer, "lockstep dev, while it runs: where the CLI finds it when given no connection flags");
            }
            try {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return connection;
    }

    /** The dev that wrote {@code file}, if the file exists and its process still runs. */
    static Optional<DevConnection> running(Path file) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ", which lockstep dev writes (delete it if no dev runs)", e);
        }
        long pid;
        try {
            pid = Long.parseLong(props.getProperty("pid", ""));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        String bootstrap = props.getProperty("bootstrap-servers");
        String url = props.getProperty("db-url");
        if (bootstrap == null || url == null || ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty()) {
            return Optional.empty();
        }
        Database database = new Database(url, Optional.ofNullable(props.getProperty("db-user")),
                Optional.ofNullable(props.getProperty("db-password")));
        return Optional.of(new DevConnection(file, pid, bootstrap, database, Optional.ofNullable(props.getProperty("http"))));
    }

    /** Deletes the file, if it is still this process's (a second dev on the same directory may have replaced it). */
    @Override
    public void close() {
        try {
            if (running(file).filter(found -> found.pid == pid).isPresent()) {
                Files.deleteIfExists(file);
            }
        } catch (IOException | UncheckedIOException e) {
            // the file is ignored once this process is gone
        }
    }
}
