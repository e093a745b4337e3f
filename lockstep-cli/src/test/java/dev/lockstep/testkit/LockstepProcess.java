package dev.lockstep.testkit;

import dev.lockstep.cli.LockstepCli;
import dev.lockstep.protocol.TopicNames;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Runs the real {@code lockstep} CLI in a child JVM, as a user would from a shell. */
public final class LockstepProcess {

    private LockstepProcess() {
    }

    /** {@code worker} with the arguments that point it at this test's broker, database and topics. */
    public static List<String> workerArgs(LockstepExtension env, TopicNames topics, String groupId) {
        return new ArrayList<>(List.of("worker",
                "--bootstrap-servers", env.kafka().bootstrapServers(),
                "--db-url", env.database().jdbcUrl(),
                "--command-topic", topics.commands(),
                "--reply-topic", topics.replies(),
                "--dead-letter-topic", topics.deadLetters(),
                "--events-topic", topics.events(),
                "--group-id", groupId,
                "--db-pool-size", "4", "--apply-threads", "3"));
    }

    /** Starts {@code lockstep ARGS...}; its stderr goes to {@code stderr} (append), its stdout stays readable. */
    public static Process start(File stderr, String... args) {
        return start(stderr, Map.of(), args);
    }

    /** As {@link #start(File, String...)}, with {@code env} added to this process's environment. */
    public static Process start(File stderr, Map<String, String> env, String... args) {
        return start(List.of(), stderr, env, args);
    }

    /**
     * As {@link #start(File, String...)}, run as {@code nohup lockstep ARGS...} runs it: with
     * SIGHUP ignored, which its children inherit (nohup replaces itself with the JVM).
     */
    public static Process startUnderNohup(File stderr, String... args) {
        return start(List.of("/usr/bin/nohup"), stderr, Map.of(), args);
    }

    /** As {@link #start(File, String...)}, with its stdout written to {@code stdout} as it comes. */
    public static Process startWithOutput(File stdout, File stderr, String... args) {
        return startWithOutput(stdout, stderr, Map.of(), args);
    }

    /** As {@link #startWithOutput(File, File, String...)}, with {@code env} added to this process's environment. */
    public static Process startWithOutput(File stdout, File stderr, Map<String, String> env, String... args) {
        return start(List.of(), Optional.of(stdout), stderr, env, args);
    }

    private static Process start(List<String> prefix, File stderr, Map<String, String> env, String... args) {
        return start(prefix, Optional.empty(), stderr, env, args);
    }

    private static Process start(List<String> prefix, Optional<File> stdout, File stderr, Map<String, String> env,
            String... args) {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                LockstepCli.class.getName()));
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(stderr));
            stdout.ifPresent(builder::redirectOutput);
            builder.environment().putAll(env);
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start a child JVM", e);
        }
    }
}
