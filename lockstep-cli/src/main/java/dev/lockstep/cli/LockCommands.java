package dev.lockstep.cli;

import dev.lockstep.client.LockClient;
import dev.lockstep.core.Command;
import dev.lockstep.core.Share;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
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
        @Parameters(paramLabel = "RESOURCE", description = "The resource to lock: 1 to 255 characters of plain text.")
        String resource;

        @Option(names = "--owner", required = true, description = "Who holds the lease: 1 to 255 characters; "
                + "only the same owner may renew or release it.")
        String owner;

        @Option(names = "--ttl", paramLabel = "SECONDS", required = true,
                description = "How long the lease lasts, from the broker's log-append time; at most the worker's --max-ttl.")
        long ttl;

        @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "0",
                description = "Held by another owner: wait up to this long (at most 300) in the resource's queue for "
                        + "the lock, one command, granted in the order callers queued. Default: ${DEFAULT-VALUE}.")
        long waitSeconds;

        @Option(names = "--limit", paramLabel = "N", description = "Acquire one of the resource's N shared permits "
                + "(a semaphore of N, 1 to " + Share.MAX_LIMIT + "), not the whole of it.")
        Integer limit;

        @Option(names = "--shared", description = "Acquire a shared permit: a read-write lock's reader (of "
                + Share.MAX_LIMIT + " unless --limit says); its writer acquires without.")
        boolean shared;

        @Mixin
        ClientOptions client;

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            if (limit != null && (limit < 1 || limit > Share.MAX_LIMIT)) {
                throw new ParameterException(spec.commandLine(), "--limit is 1 to " + Share.MAX_LIMIT + ", not " + limit);
            }
            Share share = limit == null && !shared ? Share.EXCLUSIVE
                    : Share.shared(limit == null ? Share.MAX_LIMIT : limit);
            return client.call(new Command.Acquire(LockClient.newRequestId(), resource, owner, Duration.ofSeconds(ttl),
                    Duration.ofSeconds(waitSeconds), share));
        }
    }

    @CommandLine.Command(name = "renew", mixinStandardHelpOptions = true, description = "Extend your lease to now + TTL.")
    static final class Renew implements Callable<Integer> {
        @Parameters(paramLabel = "RESOURCE", description = "The resource to lock: 1 to 255 characters of plain text.")
        String resource;

        @Option(names = "--owner", required = true, description = "Who holds the lease: 1 to 255 characters; "
                + "only the same owner may renew or release it.")
        String owner;

        @Option(names = "--ttl", paramLabel = "SECONDS", required = true,
                description = "How long the lease lasts, from the broker's log-append time; at most the worker's --max-ttl.")
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
        @Parameters(paramLabel = "RESOURCE", description = "The resource to lock: 1 to 255 characters of plain text.")
        String resource;

        @Option(names = "--owner", required = true, description = "Who holds the lease: 1 to 255 characters; "
                + "only the same owner may renew or release it.")
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
        @Parameters(paramLabel = "RESOURCE", description = "The resource to lock: 1 to 255 characters of plain text.")
        String resource;

        @Option(names = "--owner", description = "Also show where this owner's waiting acquire stands in the "
                + "resource's queue (position 1 is next in line).")
        String owner;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            return client.call(new Command.Status(LockClient.newRequestId(), resource, Optional.ofNullable(owner)));
        }
    }
}
