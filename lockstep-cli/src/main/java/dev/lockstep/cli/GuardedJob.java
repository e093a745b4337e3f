package dev.lockstep.cli;

import dev.lockstep.cli.GuardLink.Ended;
import dev.lockstep.cli.GuardLink.NotStarted;
import dev.lockstep.cli.GuardLink.Report;
import dev.lockstep.cli.GuardLink.Started;
import dev.lockstep.client.MonotonicClock;
import dev.lockstep.client.MonotonicInstant;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * A job run while a lease holds, for {@code exec} and {@code elect}, under its guard
 * ({@link JobGuard}): a process of its own that stops the job by the lease's local validity end
 * even when this JVM cannot (paused, frozen, killed). This side starts the guard, tells it the
 * job to run, each new validity end as renewals are answered, a loss it learns of, and a stop it
 * is asked for; the guard reports how the job ended.
 */
final class GuardedJob implements AutoCloseable {

    /** How often the lease's validity end is looked at, and sent to the guard when it moved. */
    private static final Duration FEED_EVERY = Duration.ofMillis(50);
    /** How long the guard's JVM may take to start and connect. */
    private static final Duration GUARD_START = Duration.ofSeconds(60);

    private final Path directory;
    private final ServerSocketChannel server;
    private final Process guard;
    private final CompletableFuture<SocketChannel> connection;
    private final MonotonicClock clock;
    private boolean sentRun;
    private boolean heardEnd;

    private GuardedJob(MonotonicClock clock, Path directory, ServerSocketChannel server, Process guard,
            CompletableFuture<SocketChannel> connection) {
        this.clock = clock;
        this.directory = directory;
        this.server = server;
        this.guard = guard;
        this.connection = connection;
    }

    /**
     * Starts the guard of {@code command}, to run it once a lease is had: a JVM takes a moment to
     * start, which it does while the lease is asked for.
     *
     * @param clock the clock the lease's validity is measured on, which the guard reads too:
     *     {@link MonotonicClock#system()}
     */
    static GuardedJob prepare(List<String> command, MonotonicClock clock) throws IOException {
        // A directory only this user can enter: nobody else can connect in the guard's place.
        Path directory = Files.createTempDirectory("lockstep-exec-");
        Path socket = directory.resolve("guard");
        ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            server.bind(UnixDomainSocketAddress.of(socket));
            List<String> line = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    // Small and quick: it reads a socket and signals a process group.
                    "-Xms8m", "-Xmx32m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                    "-cp", System.getProperty("java.class.path"), JobGuard.class.getName(), socket.toString()));
            line.addAll(command);
            Process guard = new ProcessBuilder(line).inheritIO().start();
            // Gone once the guard connected, or as this JVM exits (not when it is killed before).
            directory.toFile().deleteOnExit();
            socket.toFile().deleteOnExit();
            CompletableFuture<SocketChannel> connection = new CompletableFuture<>();
            daemon("lockstep-guard-accept", () -> {
                try {
                    connection.complete(server.accept());
                    server.close();
                    Files.deleteIfExists(socket);
                    Files.deleteIfExists(directory);
                } catch (IOException e) {
                    connection.completeExceptionally(e);
                }
            });
            return new GuardedJob(clock, directory, server, guard, connection);
        } catch (IOException e) {
            server.close();
            Files.deleteIfExists(socket);
            Files.deleteIfExists(directory);
            throw e;
        }
    }

    /**
     * Runs the job until it exits.
     *
     * @param validity the lease's local validity end, while it holds
     * @param lost completes with why when the lease is lost
     * @param what the lease, as messages name it ("lease on R", "leadership of G")
     * @param times the grace, and how much of the validity a start needs
     * @param stopRequested whether the process was asked to stop (SIGTERM, Ctrl-C) before the
     *     job's own handling of those signals was in place: the job does not start, or is stopped
     * @return the job's exit code; {@link ExitCodes#LEASE_LOST} when the lease was lost, or not
     *     renewed in time, while it ran (or before it could start); {@link ExitCodes#CANNOT_RUN}
     *     when it could not start; {@link ExitCodes#NOT_ACQUIRED} when asked to stop before it started
     */
    int run(Map<String, String> environment, Supplier<Optional<MonotonicInstant>> validity,
            CompletableFuture<String> lost, String what, GuardTimes times, BooleanSupplier stopRequested,
            PrintWriter err) throws InterruptedException {
        try (GuardLink link = GuardLink.over(connected())) {
            Optional<MonotonicInstant> validUntil = validity.get();
            while (validUntil.isPresent() && clock.now().until(validUntil.get()).compareTo(times.toStart()) < 0) {
                // Too little left to start the job: the renewal sent as the lease came gives it more.
                Thread.sleep(FEED_EVERY.toMillis());
                validUntil = validity.get();
            }
            if (validUntil.isEmpty()) {
                return say(err, ExitCodes.LEASE_LOST, lost.getNow(what + " lost") + " before the command could start");
            }
            if (stopRequested.getAsBoolean()) {
                return say(err, ExitCodes.NOT_ACQUIRED, "stopped before the command started");
            }
            sentRun = true;
            link.send(new GuardLink.Run(clock.now(), environment, validUntil.get(), times.grace()));
            Report first = link.nextReport();
            if (first instanceof NotStarted notStarted) {
                return switch (notStarted.refusal()) {
                    case CANNOT_RUN -> say(err, ExitCodes.CANNOT_RUN, notStarted.why());
                    case TOO_LATE -> say(err, ExitCodes.LEASE_LOST, what + " came too late to run the command: "
                            + notStarted.why());
                    case OTHER_CLOCK -> say(err, ExitCodes.ERROR, "the command's guard cannot keep the lease's time: "
                            + notStarted.why());
                };
            }
            if (!(first instanceof Started)) {
                throw new IOException("it did not start the command: " + first);
            }
            if (!JobGroup.supported()) {
                say(err, ExitCodes.OK, "setsid (util-linux) not found: the command runs as a plain child process, "
                        + "and its own children are not signalled (docs/client.md)");
            }
            CompletableFuture<Ended> ended = new CompletableFuture<>();
            daemon("lockstep-guard-reports", () -> {
                try {
                    Report report = link.nextReport();
                    if (!(report instanceof Ended end)) {
                        throw new IOException("it said " + report + ", not how the command ended");
                    }
                    ended.complete(end);
                } catch (IOException e) {
                    ended.completeExceptionally(e);
                }
            });
            Signals.onTerminate(() -> order(link, new GuardLink.Stop(clock.now())));
            if (stopRequested.getAsBoolean()) {
                // Asked before the handler above took over: the job is stopped all the same.
                order(link, new GuardLink.Stop(clock.now()));
            }
            lost.thenRun(() -> order(link, new GuardLink.Lost(clock.now())));
            Ended end = feedUntilEnded(link, validity, validUntil.get(), ended);
            heardEnd = true;
            if (end.cause().filter(cause -> cause == GuardPlan.Cause.DEADLINE).isPresent() && !lost.isDone()) {
                return say(err, ExitCodes.LEASE_LOST, what + " was not renewed before its local validity end; "
                        + "the command was terminated");
            }
            if (end.cause().isPresent() || lost.isDone()) {
                return say(err, ExitCodes.LEASE_LOST, lost.getNow(what + " lost") + "; the command was terminated");
            }
            return end.exitCode();
        } catch (IOException | TimeoutException e) {
            return say(err, ExitCodes.ERROR, "the command's guard failed: " + describe(e));
        } catch (ExecutionException e) {
            return say(err, ExitCodes.ERROR, "the command's guard failed: " + describe(e.getCause())
                    + "; the command is killed with it");
        }
    }

    /** Sends each new validity end until the guard says the job ended. */
    private Ended feedUntilEnded(GuardLink link, Supplier<Optional<MonotonicInstant>> validity, MonotonicInstant sent,
            CompletableFuture<Ended> ended) throws InterruptedException, ExecutionException {
        MonotonicInstant last = sent;
        while (true) {
            try {
                return ended.get(FEED_EVERY.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException stillRunning) {
                Optional<MonotonicInstant> now = validity.get();
                if (now.isPresent() && last.isBefore(now.get())) {
                    last = now.get();
                    order(link, new GuardLink.Valid(clock.now(), last));
                }
            }
        }
    }

    private SocketChannel connected() throws IOException, InterruptedException, ExecutionException, TimeoutException {
        MonotonicInstant deadline = clock.now().plus(GUARD_START);
        while (true) {
            try {
                return connection.get(100, TimeUnit.MILLISECONDS);
            } catch (TimeoutException notYet) {
                if (!guard.isAlive()) {
                    throw new IOException("it exited with " + guard.exitValue() + " before it connected");
                }
                if (deadline.isBefore(clock.now())) {
                    throw notYet;
                }
            }
        }
    }

    private static void daemon(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    private static void order(GuardLink link, GuardLink.Order order) {
        try {
            link.send(order);
        } catch (IOException guardGone) {
            // The report's reader says so.
        }
    }

    private static String describe(Throwable failure) {
        return failure instanceof EOFException ? "it closed its connection"
                : failure.getMessage() == null ? failure.getClass().getSimpleName() : failure.getMessage();
    }

    private static int say(PrintWriter err, int exitCode, String message) {
        err.println("lockstep: " + message);
        err.flush();
        return exitCode;
    }

    /**
     * Done with the guard. One that was never given a job goes at once; one that ran it ends by
     * itself once it said how the job ended; one that did not say (this JVM is stopping early) sees
     * the connection close and kills the job, or is killed, and its job's group with it.
     */
    @Override
    public void close() throws InterruptedException {
        try {
            server.close();
            Path socket = directory.resolve("guard");
            Files.deleteIfExists(socket);
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            // A leftover directory in the temporary directory, no more.
        }
        connection.thenAccept(channel -> {
            try {
                channel.close();
            } catch (IOException e) {
                // closed already
            }
        });
        if (!sentRun || !guard.waitFor(heardEnd ? 10 : 2, TimeUnit.SECONDS)) {
            guard.destroyForcibly();
        }
    }
}
