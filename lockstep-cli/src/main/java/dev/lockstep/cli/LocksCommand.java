package dev.lockstep.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.core.Lease;
import dev.lockstep.protocol.ReplyEncoder;
import dev.lockstep.store.LiveLeases;
import java.io.PrintWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "locks", mixinStandardHelpOptions = true,
        description = {"List the live leases of the command topic, as the database holds them: resource, owner, "
                + "fencing token, acquired, expires, time left (by this machine's clock), sorted by resource, a page "
                + "at a time."})
final class LocksCommand implements Callable<Integer> {

    /** How the list is written. */
    enum Format { TEXT, JSON }

    @Option(names = "--prefix", paramLabel = "P", defaultValue = "", description = "Only resources starting with P.")
    String prefix;

    @Option(names = "--owner", paramLabel = "O", description = "Only leases held by O.")
    String owner;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "100",
            description = "Leases per page (1 to 10000). Default: ${DEFAULT-VALUE}.")
    int limit;

    @Option(names = "--after", paramLabel = "RESOURCE", defaultValue = "",
            description = "Start after this resource: the next page, as the previous one says.")
    String after;

    @Option(names = "--format", defaultValue = "text", description = "text or json. Default: ${DEFAULT-VALUE}.")
    Format format;

    @Mixin
    DatabaseOptions db;

    @Option(names = "--command-topic", defaultValue = "lock.commands",
            description = "Whose leases. Default: ${DEFAULT-VALUE}.")
    String commandTopic;

    @Spec
    CommandSpec spec;

    private final Clock clock;

    LocksCommand() {
        this(Clock.systemUTC());
    }

    LocksCommand(Clock clock) {
        this.clock = clock;
    }

    @Override
    public Integer call() {
        if (limit < 1 || limit > 10_000) {
            spec.commandLine().getErr().println("lockstep: --limit must be from 1 to 10000 (got " + limit + ")");
            return ExitCodes.USAGE;
        }
        Instant now = clock.instant();
        LiveLeases.Page page = LiveLeases.read(db.reading(), commandTopic, now, prefix, Optional.ofNullable(owner),
                after, limit);
        PrintWriter out = spec.commandLine().getOut();
        if (format == Format.JSON) {
            ObjectNode root = new ObjectMapper().createObjectNode();
            ArrayNode leases = root.putArray("leases");
            page.leases().forEach(lease -> {
                ObjectNode row = leases.addObject().put("resource", lease.resource()).put("owner", lease.owner())
                        .put("fencing_token", lease.fencingToken())
                        .put("acquired_at", ReplyEncoder.formatTime(lease.acquiredAt()))
                        .put("expires_at", ReplyEncoder.formatTime(lease.expiresAt()))
                        .put("time_left_ms", lease.remainingAt(now).toMillis());
                if (!lease.share().exclusive()) {
                    row.put("mode", lease.share().mode().wireName()).put("limit", lease.share().limit())
                            .put("permit", lease.permit());
                }
                lease.value().ifPresent(value -> row.put("value", value));
            });
            page.next().ifPresentOrElse(next -> root.put("next_after", next), () -> root.putNull("next_after"));
            out.println(root);
        } else {
            out.printf("%-40s %-24s %12s  %-24s  %-24s  %s%n", "resource", "owner", "token", "acquired_at", "expires_at",
                    "left");
            for (Lease lease : page.leases()) {
                String resource = lease.share().exclusive() ? lease.resource()
                        : lease.resource() + " #" + lease.permit() + "/" + lease.share().limit();
                out.printf("%-40s %-24s %12d  %-24s  %-24s  %s%s%n", resource, lease.owner(), lease.fencingToken(),
                        ReplyEncoder.formatTime(lease.acquiredAt()), ReplyEncoder.formatTime(lease.expiresAt()),
                        left(lease.remainingAt(now)), lease.value().map(value -> "  " + value).orElse(""));
            }
            out.println(page.leases().size() + " live leases" + page.next().map(next -> "; more: --after '" + next + "'")
                    .orElse(""));
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static String left(Duration left) {
        return left.toHours() > 0 ? left.toHours() + "h" + left.toMinutesPart() + "m"
                : left.toMinutes() > 0 ? left.toMinutes() + "m" + left.toSecondsPart() + "s"
                : left.toSeconds() + "." + left.toMillisPart() / 100 + "s";
    }
}
