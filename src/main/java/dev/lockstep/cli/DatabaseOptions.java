package dev.lockstep.cli;

import dev.lockstep.store.DatabaseSettings;
import java.util.Optional;
import picocli.CommandLine.Option;

/** How to reach PostgreSQL; shared by every command that reads or writes the lockstep tables. */
final class DatabaseOptions {

    @Option(names = "--db-url", paramLabel = "JDBC_URL", defaultValue = DatabaseSettings.DEFAULT_URL,
            description = "PostgreSQL JDBC URL (env LOCKSTEP_DB_URL; default ${DEFAULT-VALUE}).")
    String dbUrl;

    @Option(names = "--db-user", description = "Overrides the user in the URL.")
    String dbUser;

    @Option(names = "--db-password", description = "Overrides the password in the URL; prefer LOCKSTEP_DB_PASSWORD.")
    String dbPassword;

    DatabaseSettings settings(int poolSize) {
        return new DatabaseSettings(dbUrl, Optional.ofNullable(dbUser), Optional.ofNullable(dbPassword), poolSize);
    }
}
