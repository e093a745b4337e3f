package dev.lockstep.cli;

import dev.lockstep.client.LockClient;
import dev.lockstep.core.Command;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/** {@code acquire}, {@code renew}, {@code release}, {@code status}: one command, one reply, through the client. */
final class LockCommands {

    private LockCommands() {
    }

    private static OptionalLong token(Long value) {
        return value == null ? OptionalLong.empty() : OptionalLong.of(value);
    }

    @CommandLine.Command(name = "acquire", mixinStandardHelpOptions = true, description = "Acquire a lease (exit 0, or 10 if held).")
    static final class Acquire implements Callable<Integer> {
        @Parameters(paramLabel = "RESOURCE")
        String resource;

        @Option(names = "--owner", required = true)
        String owner;

        @Option(names = "--ttl", paramLabel = "SECONDS", required = true)
        long ttl;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            return client.call(new Command.Acquire(LockClient.newRequestId(), resource, owner, Duration.ofSeconds(ttl)));
        }
    }

    @CommandLine.Command(name = "renew", mixinStandardHelpOptions = true, description = "Extend your lease to now + TTL.")
    static final class Renew implements Callable<Integer> {
        @Parameters(paramLabel = "RESOURCE")
        String resource;

        @Option(names = "--owner", required = true)
        String owner;

        @Option(names = "--ttl", paramLabel = "SECONDS", required = true)
        long ttl;

        @Option(names = "--fencing-token", paramLabel = "T", description = "Only renew the lease with this token.")
        Long fencingToken;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            return client.call(new Command.Renew(LockClient.newRequestId(), resource, owner, Duration.ofSeconds(ttl),
                    token(fencingToken)));
        }
    }

    @CommandLine.Command(name = "release", mixinStandardHelpOptions = true, description = "Release your lease.")
    static final class Release implements Callable<Integer> {
        @Parameters(paramLabel = "RESOURCE")
        String resource;

        @Option(names = "--owner", required = true)
        String owner;

        @Option(names = "--fencing-token", paramLabel = "T", description = "Only release the lease with this token.")
        Long fencingToken;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            return client.call(new Command.Release(LockClient.newRequestId(), resource, owner, token(fencingToken)));
        }
    }

    @CommandLine.Command(name = "status", mixinStandardHelpOptions = true, description = "Show the live lease (exit 0) or 11 if none.")
    static final class Status implements Callable<Integer> {
        @Parameters(paramLabel = "RESOURCE")
        String resource;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            return client.call(new Command.Status(LockClient.newRequestId(), resource));
        }
    }
}
