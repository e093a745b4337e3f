package dev.lockstep.cli;

import dev.lockstep.bench.BenchMode;
import dev.lockstep.bench.Benchmark;
import dev.lockstep.bench.StoreThroughput;
import dev.lockstep.bench.peers.PeerBench;
import dev.lockstep.embedded.EmbeddedKafka;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.replay.ReplayThroughput;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PostgresLockStore;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Measure lockstep against its baselines in one run: echo (Kafka request-reply without a "
                + "database), per-command (one transaction per command) and lockstep (the real worker).",
            "Prints a table; writes results.json and latency-<scenario>.png to --out. Uses its own database, "
                    + "created on the server of --db-url and dropped afterwards."})
final class BenchCommand implements Callable<Integer> {

    @Option(names = "--quick", description = "10,000 resources only, max throughput and 2,000/s: about two minutes.")
    boolean quick;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...",
            description = "Benchmark against this cluster. Default: an embedded broker started for the run.")
    String bootstrapServers;

    @Option(names = "--kafka-config", paramLabel = "FILE",
            description = "Kafka client properties for the worker and the load generator (SASL, TLS, or tuning: "
                    + "max.poll.records, linger.ms, compression.type, fetch.*).")
    Path kafkaConfig;

    @Option(names = "--db-url", paramLabel = "JDBC_URL", defaultValue = DatabaseSettings.DEFAULT_URL,
            description = "The PostgreSQL server to use (a database lockstep_bench_<pid> is created on it). "
                    + "Default: ${DEFAULT-VALUE}.")
    String dbUrl;

    @Option(names = "--out", paramLabel = "DIR", defaultValue = "target/bench", description = "Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(names = "--rates", split = ",", paramLabel = "N", description = "Fixed offered loads, commands/s. "
            + "Default: 2000 with --quick, else 1000,2000,4000,8000.")
    List<Integer> rates;

    @Option(names = "--duration", paramLabel = "SECONDS", description = "Measured seconds per run. "
            + "Default: 8 with --quick, else 15.")
    Long seconds;

    @Option(names = "--partitions", defaultValue = "12", description = "Command and reply topic partitions. "
            + "Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(names = "--modes", split = ",", paramLabel = "MODE", converter = ModeName.class,
            description = {"Which modes to run, by the names the results use. Default: all three.",
                "  echo: the Kafka ceiling: every command read and answered not_acquired or not_found, no database;",
                "  per-command: the seed's design: one transaction per command, answered right after it;",
                "  lockstep: the worker as shipped: one transaction per partition batch."})
    List<BenchMode> modes;

    /** The mode names the results print, read back. */
    static final class ModeName implements CommandLine.ITypeConverter<BenchMode> {
        @Override
        public BenchMode convert(String value) {
            return Benchmark.MODES.stream().filter(mode -> Benchmark.modeName(mode).equals(value)).findFirst()
                    .orElseThrow(() -> new CommandLine.TypeConversionException("'" + value + "' is not a mode: echo, "
                            + "per-command or lockstep"));
        }
    }

    @Option(names = "--trace", description = "Where a command's time goes: for echo and lockstep at each fixed "
            + "load (default 200 and 2,000 commands/s), p50 and p99 of each stage, from the send to the command's "
            + "append, the worker's fetch, wait, decode, transaction and acknowledgement, to the reply's receipt.")
    boolean trace;

    @Option(names = "--peers", description = "Lockstep side by side with etcd, ZooKeeper and Redis, each through its "
            + "own client: one caller acquiring and releasing, then --callers at once; lockstep's worker in echo "
            + "mode (no database) is a row too, the Kafka floor (docs/benchmarks.md). Their "
            + "clients come from the peers module (peers/), which target/lockstep puts on the class path.")
    boolean peers;

    @Option(names = "--peer", paramLabel = "NAME=URL", description = "With --peers: measure this server of etcd "
            + "(http://HOST:PORT), zookeeper (HOST:PORT) or redis (redis://HOST:PORT).")
    Map<String, String> peerUrls;

    @Option(names = "--start-peers", description = "With --peers: start the peers given no --peer from the binaries "
            + "installed here (Debian's etcd-server, zookeeper, redis-server), on free ports, durable settings.")
    boolean startPeers;

    @Option(names = "--callers", split = ",", defaultValue = "16", description = "With --peers: the counts of "
            + "callers at once, each on a resource of its own (a list, such as 1,16,64,256,1024, measures the curve "
            + "and each system's CPU per pair); with --store: the first. Default: ${DEFAULT-VALUE}.")
    List<Integer> callers;

    @Option(names = "--contended", paramLabel = "CALLERS", split = ",", defaultValue = "16,64",
            description = "With --peers: the caller counts of the contended scenario, every caller on one resource, "
                    + "holding it 1 ms (hand-overs/s, hand-over latency, grants out of order). Default: ${DEFAULT-VALUE}.")
    List<Integer> contended;

    @Option(names = "--semaphore", paramLabel = "CALLERS", split = ",", defaultValue = "16,64",
            description = "With --peers: the caller counts of the semaphore recipe (4 permits, each held 1 ms); "
                    + "leader failover is timed with it. Default: ${DEFAULT-VALUE}.")
    List<Integer> semaphore;

    @Option(names = "--failovers", defaultValue = "20", description = "With --peers: leader failovers timed per "
            + "system. Default: ${DEFAULT-VALUE}.")
    int failovers;

    @Option(names = "--pairs", defaultValue = "2000", description = "With --peers: acquire + release pairs of the "
            + "one caller. Default: ${DEFAULT-VALUE}.")
    int pairs;

    @Option(names = "--replay", description = "Measure only lockstep replay's engine, in memory on one thread "
            + "(no broker, no database): records/s against reading and answering alone.")
    boolean replay;

    @Option(names = "--store", description = "Measure only the database's share: the worker's batch step driven "
            + "directly (no broker), one caller and then --callers, batches of one command and of 16, against a bare "
            + "transaction measured in the same run.")
    boolean store;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws IOException, InterruptedException, SQLException {
        Logging.quietKafka();
        // The results go to standard output; the worker's own INFO lines would come between the rows.
        Logging.quiet("dev.lockstep", ch.qos.logback.classic.Level.WARN);
        PrintWriter printer = spec.commandLine().getOut();
        if (replay) {
            ReplayThroughput.Result result = ReplayThroughput.measure(500_000, printer);
            printer.printf("replay: %,.0f records/s on one thread (median of the measured rounds; best %,.0f); baseline "
                    + "(read and answer, no lock rules) %,.0f records/s; ratio %.2f%n", result.replayMedian(),
                    result.replayBest(), result.baselineMedian(), result.ratio());
            printer.flush();
            return ExitCodes.OK;
        }
        if (peers) {
            return peers(printer);
        }
        if (store) {
            return store(printer);
        }
        List<BenchMode> chosenModes = modes != null ? modes
                : trace ? List.of(BenchMode.ECHO, BenchMode.LOCKSTEP) : Benchmark.MODES;
        Benchmark.Plan plan = trace
                ? new Benchmark.Plan(chosenModes, List.of(new Benchmark.Scenario("10k-resources", 10_000, false)),
                        rates != null ? rates : List.of(200, 2_000), Duration.ofSeconds(3),
                        Duration.ofSeconds(seconds != null ? seconds : 10), partitions, true)
                : quick
                ? new Benchmark.Plan(chosenModes, List.of(new Benchmark.Scenario("10k-resources", 10_000, false)),
                        rates != null ? rates : List.of(2_000), Duration.ofSeconds(3),
                        Duration.ofSeconds(seconds != null ? seconds : 8), partitions, false)
                : new Benchmark.Plan(chosenModes, List.of(new Benchmark.Scenario("10k-resources", 10_000, false),
                        new Benchmark.Scenario("1m-resources", 1_000_000, true)),
                        rates != null ? rates : List.of(1_000, 2_000, 4_000, 8_000), Duration.ofSeconds(5),
                        Duration.ofSeconds(seconds != null ? seconds : 15), partitions, false);
        Files.createDirectories(out);
        withBrokerAndDatabase(printer, (kafka, databaseUrl) -> new Benchmark(kafka, databaseUrl, printer).run(plan, out));
        printer.println("wrote " + out.resolve("results.json") + " and the latency charts");
        printer.flush();
        return ExitCodes.OK;
    }

    /** What runs against the run's broker and database. */
    @FunctionalInterface
    private interface Run {
        void against(KafkaSettings kafka, String databaseUrl) throws IOException, InterruptedException, SQLException;
    }

    /**
     * Runs {@code run} against the cluster of --bootstrap-servers, or a broker started for the run
     * (its directory removed after), and a database of its own on the server of --db-url (dropped after).
     */
    private int withBrokerAndDatabase(PrintWriter printer, Run run) throws IOException, InterruptedException,
            SQLException {
        Path brokerDir = Files.createTempDirectory("lockstep-bench-kafka-");
        try {
            return withDatabase(databaseUrl -> {
                try (EmbeddedKafka embedded = bootstrapServers == null ? EmbeddedKafka.start(0, brokerDir) : null) {
                    String bootstrap = embedded != null ? embedded.bootstrapServers() : bootstrapServers;
                    printer.println("lockstep bench: broker " + bootstrap + (embedded != null ? " (embedded)" : "")
                            + ", database " + DatabaseSettings.redact(databaseUrl) + ", "
                            + Runtime.getRuntime().availableProcessors() + " cores");
                    KafkaSettings kafka = new KafkaSettings(bootstrap,
                            kafkaConfig == null ? Map.of() : KafkaSettings.readProperties(kafkaConfig));
                    run.against(kafka, databaseUrl);
                }
            });
        } finally {
            deleteTree(brokerDir);
        }
    }

    /** What runs against the run's database alone. */
    @FunctionalInterface
    private interface DatabaseRun {
        void against(String databaseUrl) throws IOException, InterruptedException, SQLException;
    }

    /** Runs {@code run} against a database of its own on the server of --db-url, dropped after. */
    private int withDatabase(DatabaseRun run) throws IOException, InterruptedException, SQLException {
        DatabaseSettings server = DatabaseSettings.of(dbUrl);
        String database = "lockstep_bench_" + ProcessHandle.current().pid();
        execute(server, "CREATE DATABASE " + database);
        try {
            run.against(server.withDatabase(database).jdbcUrl());
        } finally {
            execute(server, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
        return ExitCodes.OK;
    }

    private int store(PrintWriter printer) throws IOException, InterruptedException, SQLException {
        return withDatabase(databaseUrl -> {
            printer.println("lockstep bench --store: database " + DatabaseSettings.redact(databaseUrl) + ", "
                    + Runtime.getRuntime().availableProcessors() + " cores, " + (seconds != null ? seconds : 10)
                    + " s per round after 3 s unrecorded");
            try (LockStore lockStore = PostgresLockStore.open(DatabaseSettings.of(databaseUrl))) {
                StoreThroughput.Result result = new StoreThroughput(lockStore, Duration.ofSeconds(3),
                        Duration.ofSeconds(seconds != null ? seconds : 10)).measure(callers.get(0), 16, printer);
                long unexpected = result.rounds().stream().mapToLong(StoreThroughput.Figures::unexpected).sum();
                if (unexpected > 0) {
                    throw new IllegalStateException(unexpected + " replies were not as expected (an acquire not "
                            + "acquired, a release not released): the figures measure something else");
                }
            }
        });
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> tree = Files.walk(root)) {
            for (Path each : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(each);
            }
        }
    }

    private int peers(PrintWriter printer) throws IOException, InterruptedException, SQLException {
        PeerBench.Options options = new PeerBench.Options(peerUrls == null ? Map.of() : peerUrls, startPeers, pairs,
                callers, Duration.ofSeconds(seconds != null ? seconds : 10), contended, semaphore, failovers, out);
        Files.createDirectories(out);
        return withBrokerAndDatabase(printer, (kafka, databaseUrl) -> {
            try (LockStore store = PostgresLockStore.open(DatabaseSettings.of(databaseUrl))) {
                new PeerBench(printer).run(kafka, store, options);
            }
        });
    }

    private static void execute(DatabaseSettings server, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl()); Statement st = c.createStatement()) {
            st.execute(sql); // a generated database name, never input
        }
    }
}
