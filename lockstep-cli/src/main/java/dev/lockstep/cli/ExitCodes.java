package dev.lockstep.cli;

import dev.lockstep.core.Outcome;
import dev.lockstep.worker.WorkerStartException;

/** The CLI's exit codes, documented in docs/cli.md. */
final class ExitCodes {

    static final int OK = 0;
    static final int ERROR = 1;
    static final int USAGE = 2;
    static final int DRIFT = 3;
    /** The command topic does not use message.timestamp.type=LogAppendTime. */
    static final int NOT_LOG_APPEND_TIME = 4;
    /** The worker's decision settings differ from those recorded for the partitions. */
    static final int SETTINGS_DIFFER = 5;
    static final int NOT_ACQUIRED = 10;
    static final int NOT_FOUND = 11;
    static final int FORBIDDEN = 12;
    static final int INVALID = 13;
    static final int TIMEOUT = 14;
    static final int LEASE_LOST = 15;
    static final int CANNOT_RUN = 127;

    private ExitCodes() {
    }

    static int of(WorkerStartException.Kind kind) {
        return switch (kind) {
            case UNAVAILABLE -> ERROR;
            case NOT_LOG_APPEND_TIME -> NOT_LOG_APPEND_TIME;
            case SETTINGS_DIFFER -> SETTINGS_DIFFER;
        };
    }

    static int of(Outcome outcome) {
        return switch (outcome) {
            case ACQUIRED, RENEWED, RELEASED, LOCKED -> OK;
            case NOT_ACQUIRED -> NOT_ACQUIRED;
            case NOT_FOUND -> NOT_FOUND;
            case FORBIDDEN -> FORBIDDEN;
            case INVALID -> INVALID;
            // The client sends a moved command on until a partition decides it: one left moved timed out.
            case MOVED -> ERROR;
        };
    }
}
