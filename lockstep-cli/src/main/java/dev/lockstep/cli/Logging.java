package dev.lockstep.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.slf4j.LoggerFactory;

/**
 * The log levels every command runs with, set once when the command line is read:
 * {@code LOCKSTEP_LOG_LEVEL}, or {@code --verbose} (DEBUG, and errors with their stack traces).
 *
 * <p>Unasked, lockstep logs at INFO and the libraries at WARN, and a one-shot command keeps the
 * Kafka clients quiet, because it says what went wrong in one line of its own. Asked, that level
 * holds everywhere: for lockstep's loggers, and for the libraries' when it is finer than WARN.
 */
final class Logging {

    static final String LEVEL_ENV = "LOCKSTEP_LOG_LEVEL";

    private static volatile Optional<Level> asked = Optional.empty();
    private static volatile boolean verbose;

    private Logging() {
    }

    /** Reads what the user asked for and sets every logger by it; a level that is not one is a usage error. */
    static void configure(Map<String, String> env, boolean verboseFlag) {
        String named = env.get(LEVEL_ENV);
        Optional<Level> level = Optional.empty();
        if (named != null && !named.isBlank()) {
            Level parsed = Level.toLevel(named.strip().toUpperCase(Locale.ROOT), null);
            if (parsed == null) {
                throw new IllegalArgumentException(LEVEL_ENV + "=" + named + " is not a log level (TRACE, DEBUG, INFO, "
                        + "WARN, ERROR, OFF)");
            }
            level = Optional.of(parsed);
        } else if (verboseFlag) {
            level = Optional.of(Level.DEBUG);
        }
        asked = level;
        verbose = verboseFlag;
        level.ifPresent(Logging::apply);
    }

    private static void apply(Level level) {
        logger(org.slf4j.Logger.ROOT_LOGGER_NAME).ifPresent(root -> root.setLevel(level));
        if (!level.isGreaterOrEqual(Level.WARN)) {
            LogSetup.LIBRARIES.forEach(name -> logger(name).ifPresent(library -> library.setLevel(level)));
        }
    }

    /** Whether errors are printed with their stack traces. */
    static boolean verbose() {
        return verbose;
    }

    /** A one-shot command reports an unreachable broker in one line, not in a page of client retries: unless asked. */
    static void quietKafka() {
        if (asked.isEmpty()) {
            logger("org.apache.kafka").ifPresent(kafka -> kafka.setLevel(Level.OFF));
        }
    }

    /** Lowers {@code name} to {@code level} unless the user asked for a level: for output that logs would interleave. */
    static void quiet(String name, Level level) {
        if (asked.isEmpty()) {
            logger(name).ifPresent(logger -> logger.setLevel(level));
        }
    }

    private static Optional<Logger> logger(String name) {
        return LoggerFactory.getLogger(name) instanceof Logger logback ? Optional.of(logback) : Optional.empty();
    }
}
