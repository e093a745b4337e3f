package dev.lockstep.cli;

import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.store.StoreException;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

@Command(name = "replay", mixinStandardHelpOptions = true,
        description = {"Re-run the retained command log through the worker's engine and compare with what was "
                + "published (replies, lease events) and stored (leases, positions). Reads only.",
            "Exit codes: 0 everything reproduced, 1 a divergence, 2 cannot verify (e.g. the log's start was deleted)."})
final class ReplayCommand implements Callable<Integer> {

    /** How the report is written. */
    enum Format { TEXT, JSON }

    @Mixin
    KafkaOptions kafka;

    @Mixin
    DatabaseOptions db;

    @Spec
    CommandSpec spec;

    @Option(names = "--partition", paramLabel = "N", description = "Replay only this partition of the command topic.")
    Integer partition;

    @Option(names = "--from", paramLabel = "TIME", description = "Compare only records from this log time on "
            + "(ISO-8601, e.g. 2026-12-03T10:00:00Z); earlier ones are replayed, not compared.")
    Instant from;

    @Option(names = "--to", paramLabel = "TIME", description = "Compare only records before this log time.")
    Instant to;

    @Option(names = "--format", defaultValue = "text", description = "text or json. Default: ${DEFAULT-VALUE}.")
    Format format;

    /** {@code [#########...........]  45%  120,000 / 265,000 records} */
    static String bar(long read, long total) {
        int width = 30;
        int filled = total == 0 ? width : (int) (width * read / total);
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "] "
                + String.format("%3d%%  %,d / %,d records", total == 0 ? 100 : 100 * read / total, read, total);
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        boolean terminal = System.console() != null;
        ReplayReport report;
        Logging.quietKafka();
        try {
            KafkaReach.require(kafka.settings());
            report = new Replay(kafka.settings(), db.reading(), kafka.topics()).run(Optional.ofNullable(partition),
                    new TimeWindow(Optional.ofNullable(from), Optional.ofNullable(to)), (read, total) -> {
                        if (terminal) {
                            err.print("\r" + bar(read, total));
                            err.flush();
                        }
                    });
        } catch (KafkaException | StoreException e) {
            err.println("lockstep: cannot verify: " + e.getMessage());
            return ReplayReport.CANNOT_VERIFY;
        }
        if (terminal) {
            err.println();
        }
        out.print(format == Format.JSON ? report.json() + "\n" : report.text());
        out.flush();
        return report.exitCode();
    }
}
