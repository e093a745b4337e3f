package dev.lockstep.cli;

import dev.lockstep.store.DatabaseProbe;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.DatabaseTimeouts;
import dev.lockstep.store.StoreException;
import java.io.PrintWriter;
import java.util.Optional;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** How to reach PostgreSQL; shared by every command that reads or writes the lockstep tables. */
final class DatabaseOptions {

    // No annotated default: dev runs its own database when no URL is given, by flag, environment or file.
    @Option(names = "--db-url", paramLabel = "JDBC_URL",
            description = "PostgreSQL JDBC URL (env LOCKSTEP_DB_URL). Default: " + DatabaseSettings.DEFAULT_URL
                    + "; for dev, an embedded PostgreSQL in its data directory; for commands that only read, "
                    + "the database of a running lockstep dev first.")
    String dbUrl;

    @Option(names = "--db-user", description = "Overrides the user in the URL.")
    String dbUser;

    @Option(names = "--db-password", description = "Overrides the password in the URL; prefer LOCKSTEP_DB_PASSWORD.")
    String dbPassword;

    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /**
     * For a command that reads lockstep's tables: the URL given; else the database of a running
     * {@code lockstep dev}; else the default URL, if lockstep's tables are there. Says which one on
     * standard error, unless given; with none of them, says what to start.
     */
    DatabaseSettings reading() {
        if (dbUrl != null) {
            return settings(dbUrl, 1);
        }
        PrintWriter err = mixee.commandLine().getErr();
        Optional<DevConnection> dev = ConfigDefaults.runningDev(mixee);
        if (dev.isPresent()) {
            DevConnection.Database database = dev.get().database();
            err.println("lockstep: reading the database of lockstep dev (pid " + dev.get().pid() + "), "
                    + DatabaseSettings.redact(database.jdbcUrl()) + ", as " + dev.get().file() + " says");
            err.flush();
            return new DatabaseSettings(database.jdbcUrl(), database.user(), database.password(), 1,
                    DatabaseTimeouts.READING);
        }
        DatabaseSettings fallback = settings(DatabaseSettings.DEFAULT_URL, 1);
        try {
            DatabaseProbe.holdsLockstep(fallback);
        } catch (StoreException e) {
            throw new IllegalStateException("no lockstep dev is running, and " + e.getMessage().replaceFirst(
                    " \\(check --db-url, --db-user, --db-password\\)$", "") + ". Start `lockstep dev` (in another terminal), "
                    + "or name the worker's database with --db-url (LOCKSTEP_DB_URL)", e);
        }
        err.println("lockstep: reading the database at " + DatabaseSettings.DEFAULT_URL
                + " (the default: no --db-url given and no lockstep dev running)");
        err.flush();
        return fallback;
    }

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
                DatabaseTimeouts.READING);
    }
}
