package dev.lockstep.bench.peers;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The CPU time a system spends, from {@code /proc}: this JVM's (the callers' client; for lockstep
 * also its worker and the embedded broker) and that of the system's own server processes with all
 * their descendants (a peer's server; PostgreSQL's postmaster and backends for lockstep). Linux
 * only; elsewhere it measures nothing and says so.
 *
 * <pre>{@code
 * CpuMeter meter = CpuMeter.of(List.of(serverPid), p -> false);
 * long before = meter.cpuNanos();
 * ... the workload ...
 * double seconds = (meter.cpuNanos() - before) / 1e9;
 * }</pre>
 */
final class CpuMeter {

    /** /proc reports times in USER_HZ ticks, 100 per second on every Linux ABI Java runs on. */
    private static final long NANOS_PER_TICK = 10_000_000L;
    private static final Path PROC = Path.of("/proc");

    private final List<Long> roots;
    private final Predicate<String> alsoByName;

    private CpuMeter(List<Long> roots, Predicate<String> alsoByName) {
        this.roots = List.copyOf(roots);
        this.alsoByName = alsoByName;
    }

    /**
     * @param servers the server processes whose CPU counts, with their descendants
     * @param alsoByName processes counted by their command name ({@code /proc/PID/comm}), with
     *     their descendants: {@code "postgres"::equals} for a server this run did not start
     */
    static CpuMeter of(List<Long> servers, Predicate<String> alsoByName) {
        List<Long> roots = new ArrayList<>(servers);
        roots.add(ProcessHandle.current().pid());
        return new CpuMeter(roots, alsoByName);
    }

    /** Whether this machine has a {@code /proc} to read. */
    static boolean available() {
        return Files.isReadable(PROC.resolve("self/stat"));
    }

    /** User and system CPU time of the counted processes until now; 0 where there is no /proc. */
    long cpuNanos() {
        Map<Long, Stat> all = processes();
        Set<Long> counted = new HashSet<>();
        for (Stat stat : all.values()) {
            if (roots.contains(stat.pid()) || alsoByName.test(stat.name())) {
                counted.add(stat.pid());
            }
        }
        boolean grew = true;
        while (grew) {
            grew = false;
            for (Stat stat : all.values()) {
                if (!counted.contains(stat.pid()) && counted.contains(stat.parent())) {
                    counted.add(stat.pid());
                    grew = true;
                }
            }
        }
        return counted.stream().mapToLong(pid -> all.get(pid).ticks()).sum() * NANOS_PER_TICK;
    }

    record Stat(long pid, String name, long parent, long ticks) {
    }

    private static Map<Long, Stat> processes() {
        Map<Long, Stat> all = new HashMap<>();
        if (!available()) {
            return all;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, p -> p.getFileName().toString()
                .chars().allMatch(Character::isDigit))) {
            for (Path entry : entries) {
                read(entry).ifPresent(stat -> all.put(stat.pid(), stat));
            }
        } catch (IOException e) {
            return all;
        }
        return all;
    }

    /** {@code pid (comm) state ppid ... utime stime}: fields 1, 2, 4, 14 and 15; comm may hold spaces. */
    static Optional<Stat> parse(String line) {
        int open = line.indexOf('(');
        int close = line.lastIndexOf(')');
        if (open < 0 || close < open) {
            return Optional.empty();
        }
        String[] rest = line.substring(close + 2).split(" ");
        if (rest.length < 13) {
            return Optional.empty();
        }
        return Optional.of(new Stat(Long.parseLong(line.substring(0, open).trim()), line.substring(open + 1, close),
                Long.parseLong(rest[1]), Long.parseLong(rest[11]) + Long.parseLong(rest[12])));
    }

    private static Optional<Stat> read(Path process) {
        try {
            return parse(Files.readString(process.resolve("stat")));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // it exited meanwhile
        }
    }
}
