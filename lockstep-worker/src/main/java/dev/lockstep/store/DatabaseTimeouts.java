package dev.lockstep.store;

import java.time.Duration;
import java.util.Objects;

/**
 * How long the worker waits for PostgreSQL before it gives a connection up. A backend that froze,
 * a half-open TCP connection (a cloud load balancer that dropped it silently) or a lock that is
 * never released would otherwise hold an apply thread, and its partition, forever.
 *
 * @param statement {@code statement_timeout}: the server cancels a statement running longer
 * @param lock {@code lock_timeout}: the server gives up waiting for a row lock (a frozen session's)
 * @param idleInTransaction {@code idle_in_transaction_session_timeout}: the server ends a session of
 *     a worker that stopped in the middle of a transaction (frozen, partitioned), releasing its locks
 * @param socket pgjdbc's {@code socketTimeout}: the worker gives up a connection whose server says
 *     nothing this long, past the statement timeout (so a slow statement is cancelled by the server
 *     first, with its own error); TCP keepalive is on as well
 */
public record DatabaseTimeouts(Duration statement, Duration lock, Duration idleInTransaction, Duration socket) {

    /**
     * The worker's: a hung connection is given up within seconds (docs/operations.md#recovery).
     * The longest batch transaction measured under saturating load took 275 ms (p99.99 and max,
     * {@code lockstep bench --trace}), so a statement is cancelled only at seven times that; the
     * few statements that may rightly take longer have their own bound ({@code LongStatements}).
     */
    public static final DatabaseTimeouts DEFAULT = new DatabaseTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2),
            Duration.ofSeconds(3), Duration.ofSeconds(3));
    /** The offline tools' ({@code replay}, {@code audit}): whole tables are read, and no caller waits. */
    public static final DatabaseTimeouts READING = new DatabaseTimeouts(Duration.ofSeconds(30), Duration.ofSeconds(10),
            Duration.ofSeconds(30), Duration.ofSeconds(45));

    public DatabaseTimeouts {
        Objects.requireNonNull(statement, "statement");
        Objects.requireNonNull(lock, "lock");
        Objects.requireNonNull(idleInTransaction, "idleInTransaction");
        Objects.requireNonNull(socket, "socket");
        for (Duration timeout : new Duration[] {statement, lock, idleInTransaction, socket}) {
            if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("database timeouts must be positive: " + this);
            }
        }
        if (socket.compareTo(statement) <= 0) {
            throw new IllegalArgumentException("the socket timeout (" + socket.toSeconds()
                    + " s) must exceed the statement timeout (" + statement.toSeconds()
                    + " s), so that the server cancels a slow statement first");
        }
    }

    /** The session settings, in milliseconds: numbers only, nothing a caller could inject. */
    String sessionSql() {
        return "SET statement_timeout = " + statement.toMillis() + "; SET lock_timeout = " + lock.toMillis()
                + "; SET idle_in_transaction_session_timeout = " + idleInTransaction.toMillis();
    }

    /** pgjdbc's {@code socketTimeout}, in whole seconds (at least one). */
    int socketSeconds() {
        return (int) Math.max(1, (socket.toMillis() + 999) / 1000);
    }
}
