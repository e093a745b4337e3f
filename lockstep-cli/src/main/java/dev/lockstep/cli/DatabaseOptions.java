package dev.lockstep.cli;

import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.DatabaseTimeouts;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How to reach PostgreSQL; shared by every command that reads or writes the lockstep tables. */
final class DatabaseOptions {

    // No annotated default: dev runs its own database when no URL is given, by flag, environment or file.
    @Option(names = "--db-url", paramLabel = "JDBC_URL",
            description = "PostgreSQL JDBC URL (env LOCKSTEP_DB_URL). Default: " + DatabaseSettings.DEFAULT_URL
                    + "; for dev, an embedded PostgreSQL in its data directory.")
    String dbUrl;

    @Option(names = "--db-user", description = "Overrides the user in the URL.")
    String dbUser;

    @Option(names = "--db-password", description = "Overrides the password in the URL; prefer LOCKSTEP_DB_PASSWORD.")
    String dbPassword;

    /** The URL given by flag, environment or properties file, if any. */
    Optional<String> givenUrl() {
        return Optional.ofNullable(dbUrl);
    }

    DatabaseSettings settings(int poolSize) {
        return settings(givenUrl().orElse(DatabaseSettings.DEFAULT_URL), poolSize);
    }

    /** The settings for {@code url}, with the user and password options applied to it. */
    DatabaseSettings settings(String url, int poolSize) {
        return new DatabaseSettings(url, Optional.ofNullable(dbUser), Optional.ofNullable(dbPassword), poolSize,
                DatabaseTimeouts.DEFAULT);
    }
}
