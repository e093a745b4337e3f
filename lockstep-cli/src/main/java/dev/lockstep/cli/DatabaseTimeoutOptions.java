package dev.lockstep.cli;

import dev.lockstep.store.DatabaseTimeouts;
import java.time.Duration;
import picocli.CommandLine.Option;

/** How long a worker waits for PostgreSQL: its sessions' timeouts (docs/operations.md#a-database-that-hangs). */
final class DatabaseTimeoutOptions {

    @Option(names = "--db-statement-timeout", paramLabel = "SECONDS", defaultValue = "2",
            description = "statement_timeout of the worker's sessions. Default: ${DEFAULT-VALUE}.")
    long statementTimeoutSeconds;

    @Option(names = "--db-lock-timeout", paramLabel = "SECONDS", defaultValue = "2",
            description = "lock_timeout of the worker's sessions. Default: ${DEFAULT-VALUE}.")
    long lockTimeoutSeconds;

    @Option(names = "--db-idle-in-transaction-timeout", paramLabel = "SECONDS", defaultValue = "3",
            description = "idle_in_transaction_session_timeout of the worker's sessions: the server ends the session "
                    + "of a worker stopped inside a transaction, releasing its locks. Default: ${DEFAULT-VALUE}.")
    long idleInTransactionTimeoutSeconds;

    @Option(names = "--db-socket-timeout", paramLabel = "SECONDS", defaultValue = "3",
            description = "Give up a connection whose server says nothing this long (pgjdbc socketTimeout; more than "
                    + "the statement timeout); TCP keepalive is on. Default: ${DEFAULT-VALUE}.")
    long socketTimeoutSeconds;

    DatabaseTimeouts timeouts() {
        return new DatabaseTimeouts(Duration.ofSeconds(statementTimeoutSeconds), Duration.ofSeconds(lockTimeoutSeconds),
                Duration.ofSeconds(idleInTransactionTimeoutSeconds), Duration.ofSeconds(socketTimeoutSeconds));
    }
}
