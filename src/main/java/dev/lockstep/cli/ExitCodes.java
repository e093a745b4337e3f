package dev.lockstep.cli;

import dev.lockstep.core.Outcome;

/** The CLI's exit codes, documented in the README. */
final class ExitCodes {

    static final int OK = 0;
    static final int ERROR = 1;
    static final int USAGE = 2;
    static final int DRIFT = 3;
    static final int NOT_ACQUIRED = 10;
    static final int NOT_FOUND = 11;
    static final int FORBIDDEN = 12;
    static final int INVALID = 13;
    static final int TIMEOUT = 14;
    static final int LEASE_LOST = 15;
    static final int CANNOT_RUN = 127;

    private ExitCodes() {
    }

    static int of(Outcome outcome) {
        return switch (outcome) {
            case ACQUIRED, RENEWED, RELEASED, LOCKED -> OK;
            case NOT_ACQUIRED -> NOT_ACQUIRED;
            case NOT_FOUND -> NOT_FOUND;
            case FORBIDDEN -> FORBIDDEN;
            case INVALID -> INVALID;
        };
    }
}
