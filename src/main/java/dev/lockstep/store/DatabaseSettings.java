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
 */
public record DatabaseSettings(String jdbcUrl, Optional<String> user, Optional<String> password, int poolSize) {

    public static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";

    public DatabaseSettings {
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("the database URL must start with jdbc:postgresql: (got "
                    + redact(jdbcUrl) + ")");
        }
        if (poolSize < 1) {
            throw new IllegalArgumentException("pool size must be at least 1: " + poolSize);
        }
    }

    public static DatabaseSettings of(String jdbcUrl) {
        return new DatabaseSettings(jdbcUrl, Optional.empty(), Optional.empty(), 4);
    }

    @Override
    public String toString() {
        return "DatabaseSettings[url=" + redact(jdbcUrl) + ", user=" + user.orElse("(from URL)")
                + ", password=" + (password.isPresent() ? "****" : "(from URL or none)") + ", poolSize=" + poolSize + "]";
    }

    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1****");
    }
}
