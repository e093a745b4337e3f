package dev.lockstep.bench.peers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.lockstep.bench.Results;
import dev.lockstep.bench.RunInfo;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.store.LockStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.stream.Collectors;

/**
 * {@code lockstep bench --peers}: the same workload ({@link PeerWorkload}) against lockstep and
 * against etcd, ZooKeeper and Redis, each through its own client, side by side in one run, with
 * lockstep's Kafka floor (its worker in echo mode) as a row of its own. A peer
 * is given by URL, or started from the binaries installed on this machine when asked; one that
 * cannot be measured is reported and left out of the table, never faked.
 */
public final class PeerBench {

    /** The peers the table has a row for, in order. */
    public static final List<String> PEERS = List.of("etcd", "zookeeper", "redis");

    /**
     * @param urls a server per peer name, given by the user
     * @param start whether to start from installed binaries the peers that have no URL
     * @param callers the counts of callers at once, each caller on a resource of its own: the curve
     * @param contendedCallers the caller counts of the contended scenario (all on one resource); none skips it
     */
    /**
     * @param semaphoreCallers the caller counts of the semaphore recipe; none skips the recipes
     * @param failovers how many leader failovers each system is timed for
     */
    public record Options(Map<String, String> urls, boolean start, int sequentialPairs, List<Integer> callers,
            Duration concurrentFor, List<Integer> contendedCallers, List<Integer> semaphoreCallers, int failovers,
            Path out) {
    }

    private final PrintWriter out;

    public PeerBench(PrintWriter out) {
        this.out = out;
    }

    /** Measures lockstep, its echo floor and every peer it can; prints and writes the table and chart. */
    public List<PeerWorkload.Figures> run(KafkaSettings kafka, LockStore store, Options options)
            throws IOException, InterruptedException {
        PeerWorkload workload = new PeerWorkload(options.sequentialPairs(), options.callers(), options.concurrentFor(),
                line -> {
                    out.println(line);
                    out.flush();
                });
        ContendedWorkload contended = new ContendedWorkload(options.contendedCallers(), options.concurrentFor());
        Optional<RecipeWorkload> recipes = options.semaphoreCallers().isEmpty() ? Optional.empty()
                : Optional.of(new RecipeWorkload(options.semaphoreCallers(), options.concurrentFor(), options.failovers()));
        List<RecipeWorkload.Figures> recipeFigures = new ArrayList<>();
        List<PeerWorkload.Figures> figures = new ArrayList<>();
        List<ContendedWorkload.Figures> contendedFigures = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        for (LockstepSide.Kind kind : LockstepSide.Kind.values()) {
            try (LockstepSide side = LockstepSide.start(kind, kafka, store)) {
                // This JVM holds the client, the worker and the embedded broker; lockstep's database is PostgreSQL.
                CpuMeter cpu = CpuMeter.of(List.of(), kind == LockstepSide.Kind.LOCKSTEP ? "postgres"::equals
                        : name -> false);
                figures.add(workload.measure(kind.peerName, kind.described, side.peer(), cpu));
                contendedFigures.addAll(contended.measure(kind.peerName, side.peer(),
                        kind == LockstepSide.Kind.LOCKSTEP));
                if (kind == LockstepSide.Kind.LOCKSTEP && recipes.isPresent()) {
                    recipeFigures.add(recipes.get().measure(kind.peerName, side.peer()));
                }
            }
        }
        Map<String, LockPeer.Provider> providers = ServiceLoader.load(LockPeer.Provider.class).stream()
                .map(ServiceLoader.Provider::get).collect(Collectors.toMap(LockPeer.Provider::name, p -> p));
        Path servers = Files.createTempDirectory("lockstep-peers-");
        try {
            for (String name : PEERS) {
                Optional<PeerWorkload.Figures> measured = measure(name, providers.get(name), workload, contended,
                        contendedFigures, recipes, recipeFigures, options, servers.resolve(name), skipped);
                measured.ifPresent(figures::add);
            }
        } finally {
            deleteTree(servers);
        }
        PeerReport.print(figures, skipped, options, out);
        PeerReport.printContended(contendedFigures, figures, options, out);
        RecipeWorkload.print(recipeFigures, options.concurrentFor(), out);
        Files.createDirectories(options.out());
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE);
        RunInfo run = RunInfo.current(Clock.systemUTC());
        json.writeValue(options.out().resolve("peers.json").toFile(), new Results<>(run, figures));
        json.writeValue(options.out().resolve("peers-contended.json").toFile(), new Results<>(run, contendedFigures));
        if (recipes.isPresent()) {
            json.writeValue(options.out().resolve("peers-recipes.json").toFile(), new Results<>(run, recipeFigures));
        }
        PeerReport.chart(figures, options.callers().get(0), options.out().resolve("peers.png"));
        if (options.callers().size() > 1) {
            PeerReport.curveChart(figures, options.out().resolve("peers-curve.png"));
        }
        out.println("wrote " + options.out().resolve("peers.json") + ", " + options.out().resolve("peers-contended.json")
                + " and " + options.out().resolve("peers.png") + (options.callers().size() > 1
                        ? " and " + options.out().resolve("peers-curve.png") : ""));
        out.flush();
        return figures;
    }

    private Optional<PeerWorkload.Figures> measure(String name, LockPeer.Provider provider, PeerWorkload workload,
            ContendedWorkload contended, List<ContendedWorkload.Figures> contendedFigures,
            Optional<RecipeWorkload> recipes, List<RecipeWorkload.Figures> recipeFigures, Options options, Path dir,
            List<String> skipped) throws InterruptedException {
        if (provider == null) {
            skipped.add(name + ": not measured: its client is not on the classpath (build the peers module: mvn -B -q "
                    + "install -DskipTests && mvn -B -q -f peers/pom.xml package; target/lockstep adds it)");
            return Optional.empty();
        }
        Optional<String> url = Optional.ofNullable(options.urls().get(name));
        if (url.isEmpty() && !options.start()) {
            skipped.add(name + ": not measured: give --peer " + name + "=URL, or --start-peers to start it here");
            return Optional.empty();
        }
        LockPeer.Server server = null;
        try {
            if (url.isEmpty()) {
                server = provider.start(dir);
                out.println(name + ": started at " + server.url());
            }
            try (LockPeer peer = provider.connect(url.orElse(server == null ? "" : server.url()))) {
                out.println(name + ": measuring " + provider.described());
                out.flush();
                // A server given by URL is not this machine's to measure: its row counts the client's CPU only.
                CpuMeter cpu = CpuMeter.of(server == null ? List.of() : server.pids(), process -> false);
                PeerWorkload.Figures figures = workload.measure(name, provider.described(), peer, cpu);
                contendedFigures.addAll(contended.measure(name, peer, true));
                if (recipes.isPresent()) {
                    recipeFigures.add(recipes.get().measure(name, peer));
                }
                return Optional.of(figures);
            }
        } catch (LockPeer.Unavailable e) {
            skipped.add(name + ": not measured: " + e.getMessage());
            return Optional.empty();
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var tree = Files.walk(root)) {
            for (Path each : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(each);
            }
        }
    }
}
