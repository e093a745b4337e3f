package dev.lockstep.store;

import java.util.Objects;
import java.util.Optional;

/**
 * How to reach PostgreSQL. The password never appears in {@link #toString()}, so the settings can
 * be logged at start.
 *
 * @param jdbcUrl e.g. {@code jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres}
 * @param user overrides a user in the URL when present
 * @param password overrides a password in the URL when present
 * @param poolSize connections kept open; a worker uses one per batch in flight
 * @param timeouts how long the store waits for the server before giving a statement or connection up
 */
public record DatabaseSettings(String jdbcUrl, Optional<String> user, Optional<String> password, int poolSize,
        DatabaseTimeouts timeouts) {

    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
    /** One connection per partition batch applied side by side (12 partitions by default), plus the sweeper's. */
    public static final int DEFAULT_POOL_SIZE = 13;

    public DatabaseSettings {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(timeouts, "timeouts");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("the database URL must start with jdbc:postgresql: (got "
                    + redact(jdbcUrl) + ")");
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("pool size must be at least 1: " + poolSize);
        }
    }

    public static DatabaseSettings of(String jdbcUrl) {
        return new DatabaseSettings(jdbcUrl, Optional.empty(), Optional.empty(), DEFAULT_POOL_SIZE,
                DatabaseTimeouts.DEFAULT);
    }

    public DatabaseSettings withTimeouts(DatabaseTimeouts newTimeouts) {
        return new DatabaseSettings(jdbcUrl, user, password, poolSize, newTimeouts);
    }

    /** The same server and credentials, another database. */
    public DatabaseSettings withDatabase(String database) {
        if (!database.matches("[a-z_][a-z0-9_]*")) {
            throw new IllegalArgumentException("not a plain database name: " + database);
        }
        return new DatabaseSettings(jdbcUrl.replaceFirst("(jdbc:postgresql://[^/?]+/)[^?]*", "$1" + database), user,
                password, poolSize, timeouts);
    }

    @Override
    public String toString() {
        return "DatabaseSettings[url=" + redact(jdbcUrl) + ", user=" + user.orElse("(from URL)")
                + ", password=" + (password.isPresent() ? "****" : "(from URL or none)") + ", poolSize=" + poolSize
                + ", " + timeouts + "]";
    }

    /** The URL with any password in it masked: for logs and messages. */
    public static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1****");
    }
}
