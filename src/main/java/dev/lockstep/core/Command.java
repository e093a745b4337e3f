package dev.lockstep.core;

import java.time.Duration;
import java.util.OptionalLong;

/**
 * A validated lock command. Everything here has passed the protocol's checks: lengths are in
 * bounds, owners are trimmed and non-empty, TTLs are positive and below the configured maximum.
 */
public sealed interface Command {

    String requestId();

    String resource();

    CommandType type();

    record Acquire(String requestId, String resource, String owner, Duration ttl) implements Command {
        @Override
        public CommandType type() {
            return CommandType.ACQUIRE;
        }
    }

    /** @param fencingToken when present, must equal the live lease's token */
    record Renew(String requestId, String resource, String owner, Duration ttl, OptionalLong fencingToken)
            implements Command {
        @Override
        public CommandType type() {
            return CommandType.RENEW;
        }
    }

    /** @param fencingToken when present, must equal the live lease's token */
    record Release(String requestId, String resource, String owner, OptionalLong fencingToken) implements Command {
        @Override
        public CommandType type() {
            return CommandType.RELEASE;
        }
    }

    record Status(String requestId, String resource) implements Command {
        @Override
        public CommandType type() {
            return CommandType.STATUS;
        }
    }
}
