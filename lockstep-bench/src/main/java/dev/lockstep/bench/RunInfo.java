package dev.lockstep.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * When and where a benchmark ran, written into its results file beside the figures: a figure
 * means little without the machine it was measured on, and the tables of docs/benchmarks.md say
 * both.
 *
 * @param date when the results were written, UTC, to the minute
 * @param cpu the processor's model name, as the kernel reports it
 */
public record RunInfo(String date, int cores, String cpu, @JsonProperty("memory_gib") long memoryGib, String java,
        String os) {

    private static final DateTimeFormatter MINUTE = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)
            .withZone(ZoneOffset.UTC);

    /** This machine, now. */
    public static RunInfo current(Clock clock) {
        return new RunInfo(MINUTE.format(clock.instant().truncatedTo(ChronoUnit.MINUTES)),
                Runtime.getRuntime().availableProcessors(), procLine("/proc/cpuinfo", "model name").orElse("unknown"),
                procLine("/proc/meminfo", "MemTotal").map(RunInfo::gib).orElse(0L),
                Runtime.version().toString(), System.getProperty("os.name") + " " + System.getProperty("os.version"));
    }

    /** One line, as a table's caption gives it. */
    public String describe() {
        return String.format(Locale.ROOT, "%s, %d cores (%s), %d GiB, Java %s, %s", date, cores, cpu, memoryGib, java, os);
    }

    private static Optional<String> procLine(String file, String key) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            return lines.stream().filter(line -> line.startsWith(key)).findFirst()
                    .map(line -> line.substring(line.indexOf(':') + 1).trim());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** "24683452 kB" in GiB, rounded. */
    private static long gib(String meminfo) {
        long kb = Long.parseLong(meminfo.replaceAll("[^0-9]", ""));
        return Math.round(kb / (1024.0 * 1024.0));
    }
}
