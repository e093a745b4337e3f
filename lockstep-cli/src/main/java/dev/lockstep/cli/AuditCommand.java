package dev.lockstep.cli;

import dev.lockstep.audit.Audit;
import dev.lockstep.audit.AuditFormat;
import dev.lockstep.audit.Holds;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@Command(name = "audit", mixinStandardHelpOptions = true,
        description = {"Who held a resource, when, with which fencing token: read from the events topic "
                + "(only the resource's partition). lockstep replay checks the events against the command log."})
final class AuditCommand implements Callable<Integer> {

    @Parameters(paramLabel = "RESOURCE", arity = "0..1", description = "The resource (or give --prefix).")
    String resource;

    @Option(names = "--prefix", paramLabel = "P", description = "Every resource whose name starts with P.")
    String prefix;

    @ArgGroup(exclusive = false)
    Window window;

    static final class Window {
        @Option(names = "--at", paramLabel = "TIME", description = "Only the hold covering this log time (ISO-8601).")
        Instant at;

        @Option(names = "--from", paramLabel = "TIME", description = "Only holds overlapping [--from, --to).")
        Instant from;

        @Option(names = "--to", paramLabel = "TIME", description = "With --from: the end of the window (exclusive).")
        Instant to;
    }

    @Option(names = "--format", defaultValue = "text", description = "text, json or html. Default: ${DEFAULT-VALUE}.")
    AuditFormat format;

    @Option(names = "--output", paramLabel = "FILE", description = "Write to FILE instead of standard output.")
    Path output;

    @Mixin
    KafkaOptions kafka;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        if ((resource == null) == (prefix == null)) {
            throw new ParameterException(spec.commandLine(), "give either RESOURCE or --prefix");
        }
        if (window != null && window.at != null && (window.from != null || window.to != null)) {
            throw new ParameterException(spec.commandLine(), "give either --at or --from/--to");
        }
        Logging.quietKafka();
        KafkaReach.require(kafka.settings());
        Audit audit = new Audit(kafka.settings(), kafka.topics().events());
        List<Holds> found = resource != null ? List.of(audit.resource(resource)) : audit.prefix(prefix);
        String written = format.write(found.stream().map(this::windowed).toList());
        if (output != null) {
            Files.writeString(output, written, StandardCharsets.UTF_8);
        } else {
            PrintWriter out = spec.commandLine().getOut();
            out.print(written.endsWith("\n") ? written : written + "\n");
            out.flush();
        }
        return ExitCodes.OK;
    }

    private Holds windowed(Holds holds) {
        if (window == null) {
            return holds;
        }
        if (window.at != null) {
            return holds.only(holds.allAt(window.at));
        }
        Instant from = Optional.ofNullable(window.from).orElse(Instant.MIN);
        Instant to = Optional.ofNullable(window.to).orElse(Instant.MAX);
        return holds.only(holds.between(from, to));
    }
}
