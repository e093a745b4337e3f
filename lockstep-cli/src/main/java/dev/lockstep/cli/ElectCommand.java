package dev.lockstep.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.LeaderElection;
import dev.lockstep.client.LeaderElection.Leadership;
import dev.lockstep.client.LeaseLost;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.client.MonotonicClock;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ReplyEncoder;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "elect", mixinStandardHelpOptions = true,
        description = {"Campaign to lead GROUP, as one candidate of a leader election.",
            "Waits in line behind the candidates before it; when it leads, prints a JSON line "
                    + "(\"elected\", with the term: the lease's fencing token) and runs COMMAND with LOCKSTEP_TERM, "
                    + "LOCKSTEP_FENCING_TOKEN, LOCKSTEP_GROUP, LOCKSTEP_OWNER and LOCKSTEP_VALUE set, renewing the lease "
                    + "while it runs; resigns when it exits, and exits with its exit code. If leadership is lost or not "
                    + "renewed in time, COMMAND is stopped as 'lockstep exec' stops its command (SIGKILL by the lease's "
                    + "local validity end, even if this JVM is frozen), and lockstep exits 15.",
            "Without COMMAND: leads until stopped (SIGTERM, Ctrl-C), printing a line when it is elected and when "
                    + "it loses a term (it then campaigns again), and resigns when stopped."})
final class ElectCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Parameters(index = "0", paramLabel = "GROUP", description = "The election: a resource, held by its leader.")
    String group;

    @Parameters(index = "1..*", arity = "0..*", paramLabel = "COMMAND",
            description = "What the leader runs, and its arguments, after --.")
    List<String> command = List.of();

    @Option(names = "--candidate", paramLabel = "ID", required = true,
            description = {"Who campaigns, as observers see it (the value, unless --value says otherwise).",
                "A label, not the lease's owner: that is the label plus a suffix unique to this process "
                        + "(LOCKSTEP_OWNER), so two processes never lead at once, whatever their labels."})
    String candidate;

    @Option(names = "--value", paramLabel = "V",
            description = "What the leader publishes to observers (its address), at most "
                    + Limits.MAX_LEASE_VALUE_CHARS + " characters. Default: the candidate ID.")
    Optional<String> value;

    @Option(names = "--ttl", paramLabel = "SECONDS", defaultValue = "15",
            description = "The leader's lease: renewed every third of it; a leader that dies is followed after it "
                    + "at the latest. Default: ${DEFAULT-VALUE}.")
    long ttl;

    @Option(names = "--grace", paramLabel = "SECONDS", defaultValue = "10",
            description = {"Time between SIGTERM and SIGKILL when leadership is lost or not renewed in time, at most "
                + "about 0.117 x the TTL: SIGKILL never comes after the lease's local validity end. Default: ${DEFAULT-VALUE}."})
    long graceSeconds;

    @Mixin
    ClientOptions client;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        Logging.quietKafka();
        ExecOwner owner;
        try {
            owner = ExecOwner.of(Optional.of(candidate));
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage().replace("--owner", "--candidate"), e);
        }
        if (value.isPresent() && value.get().codePointCount(0, value.get().length()) > Limits.MAX_LEASE_VALUE_CHARS) {
            throw new ParameterException(spec.commandLine(), "--value is at most " + Limits.MAX_LEASE_VALUE_CHARS
                    + " characters");
        }
        PrintWriter out = spec.commandLine().getOut();
        CompletableFuture<String> lost = new CompletableFuture<>();
        LeaderElection.Listener listener = new LeaderElection.Listener() {
            @Override
            public void gained(Leadership leadership) {
                print(out, "elected", leadership, Optional.empty());
            }

            @Override
            public void lost(Leadership leadership, LeaseLost.Reason why) {
                print(out, "deposed", leadership, Optional.of(why));
                if (why != LeaseLost.Reason.RESIGNED) {
                    lost.complete("leadership of " + group + " lost (" + why + ")");
                }
            }
        };
        LockClientSettings settings = client.settings();
        try (LockClient locks = LockClient.start(settings);
                LeaderElection election = LeaderElection.of(locks, group, owner.owner(), Duration.ofSeconds(ttl),
                        Optional.of(value.orElse(candidate)), listener)) {
            CountDownLatch stopped = new CountDownLatch(1);
            // Stopped once the resignation is published and told ("deposed ... resigned"); a command
            // not started yet is not started (once it runs, its guard's handling takes the signals).
            Signals.onTerminate(() -> election.resign().whenComplete((resigned, failed) -> stopped.countDown()));
            if (command.isEmpty()) {
                election.campaign();
                stopped.await();
                return ExitCodes.OK;
            }
            // The guard starts while this candidate campaigns.
            try (GuardedJob job = GuardedJob.prepare(command, MonotonicClock.system())) {
                Leadership term;
                try {
                    term = election.campaign().get();
                } catch (CancellationException | ExecutionException e) {
                    return ExitCodes.NOT_ACQUIRED;
                }
                return job.run(Map.of(
                        "LOCKSTEP_TERM", Long.toString(term.term()),
                        "LOCKSTEP_FENCING_TOKEN", Long.toString(term.term()),
                        "LOCKSTEP_GROUP", group,
                        "LOCKSTEP_OWNER", owner.owner(),
                        "LOCKSTEP_VALUE", term.value().orElse("")), () -> election.validUntil(term.term()), lost,
                        "leadership of " + group,
                        GuardTimes.of(Duration.ofSeconds(graceSeconds), Duration.ofSeconds(ttl), settings),
                        () -> !election.isLeader(), spec.commandLine().getErr());
            } catch (IOException e) {
                spec.commandLine().getErr().println("lockstep: cannot start the command's guard: " + e.getMessage());
                spec.commandLine().getErr().flush();
                return ExitCodes.CANNOT_RUN;
            }
        }
    }

    private static void print(PrintWriter out, String event, Leadership leadership, Optional<LeaseLost.Reason> why) {
        ObjectNode line = JSON.createObjectNode().put("event", event).put("group", leadership.group())
                .put("owner", leadership.candidate()).put("term", leadership.term());
        leadership.value().ifPresent(v -> line.put("value", v));
        if (why.isPresent()) {
            line.put("reason", why.get().name().toLowerCase(Locale.ROOT));
        } else {
            line.put("expires_at", ReplyEncoder.formatTime(leadership.expiresAt()));
        }
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
