package dev.lockstep.faults;

import java.util.Locale;

/**
 * The clients that take part in the belief runs, each named {@code KIND-...} ({@code python-a},
 * {@code exec-2}): the Java client in the test's JVM, {@code lockstep exec} and {@code lockstep
 * elect} processes (their jobs' lifetimes are the beliefs), and the Python and Node clients' loops.
 */
enum ClientKind {
    JAVA, EXEC, ELECT, PYTHON, NODE;

    static ClientKind of(String client) {
        int dash = client.indexOf('-');
        return valueOf((dash < 0 ? client : client.substring(0, dash)).toUpperCase(Locale.ROOT));
    }
}
