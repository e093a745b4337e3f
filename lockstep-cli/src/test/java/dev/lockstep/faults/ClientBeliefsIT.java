package dev.lockstep.faults;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real clients of every kind (the Java client in this JVM, {@code lockstep exec}, {@code lockstep
 * elect}, the Python and Node clients) take leases of two locks, a lock an exec shares with one
 * Java client, a semaphore of two and a leader election: waiting longer than their TTLs, one owner
 * with two acquires in flight, some behind the {@link dev.lockstep.testkit.BrokerLink}. The test
 * faults them from their side, each fault longer than their TTLs: a {@code lockstep exec} and a
 * {@code lockstep elect} frozen (SIGSTOP) while their jobs run; a Python and a Node client frozen
 * while they wait, granted meanwhile; the link a black hole, then cut; a worker killed; and at the
 * start, no worker yet. Each client records what it believed (docs/reliability.md, beliefs); the
 * history is checked with those beliefs, then replayed ({@link BeliefRun}).
 */
@Tag("host-tools") // needs Debian's python3-confluent-kafka, Node with clients/node's packages, setpriv and setsid
@Tag("serial") // clients' beliefs are judged to the millisecond
class ClientBeliefsIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration TTL = Duration.ofSeconds(2);
    /** exec and elect: their jobs die after their JVMs' signal, so their TTLs leave them a second more. */
    private static final Duration JOB_TTL = Duration.ofSeconds(3);
    private static final Duration JOB = Duration.ofSeconds(5);
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final Duration SETTLE = Duration.ofSeconds(2);
    /** Clients behind the link hold longer, so that its faults find them holding. */
    private static final Duration LONG_HOLD_MIN = Duration.ofSeconds(2);
    private static final Duration LONG_HOLD_MAX = Duration.ofSeconds(5);
    private static final String[] RESOURCES = {"lock-a", "lock-b", "lock-x", "sem", "leader", "frozen-py", "frozen-node"};
    /** Faults of one round: black hole, Python and Node frozen, cut, worker killed, exec and elect frozen. */
    private static final int FAULTS_PER_ROUND = 7;

    /** CI: every fault once, in about a minute. */
    @Test
    void everyClientActsAsHolderOnlyInsideItsLeaseAndNeverBesideAnother() throws Exception {
        run("clients-beliefs", env.topics(), 1);
    }

    /** Beyond CI's time ({@code mvn -Pcluster verify}): round after round, on topics of its own. */
    @Test
    @Tag("cluster")
    void roundAfterRoundEveryClientActsAsHolderOnlyInsideItsLease() throws Exception {
        run("clients-beliefs-rounds", env.topics().suffixed("-rounds"), Integer.getInteger("lockstep.beliefs.rounds", 6));
    }

    private static void run(String name, TopicNames topics, int rounds) throws Exception {
        List<ChildWorker> workers = new ArrayList<>();
        try (BeliefRun run = BeliefRun.start(env, topics, name)) {
            // The clients start with the workers, so their first requests wait in the log, some past
            // their TTLs, until a worker runs. Two that will be frozen while they wait queue behind a gate.
            workers.add(ChildWorker.start(env, topics, name + "-worker-1", name, Map.of()));
            workers.add(ChildWorker.start(env, topics, name + "-worker-2", name, Map.of()));
            run.closeGate("frozen-py");
            run.closeGate("frozen-node");
            ChildClients children = run.children();
            ChildClients.Child pythonFrozen = children.python("python-f", waiter("frozen-py"));
            ChildClients.Child nodeFrozen = children.node("node-f", waiter("frozen-node"));
            LockClient direct = env.startClient(LockClientSettings.defaults(env.kafka()).withTopics(topics));
            LockClient behind = env.startClient(LockClientSettings.defaults(env.proxiedKafka()).withTopics(topics));
            Contention lockA = Contention.exclusive("lock-a", TTL, WAIT, Duration.ofMillis(500), Duration.ofSeconds(3));
            Contention lockB = Contention.exclusive("lock-b", TTL, WAIT, Duration.ofMillis(500), Duration.ofSeconds(3));
            Contention sem = Contention.exclusive("sem", TTL, WAIT, Duration.ofSeconds(1), Duration.ofSeconds(3)).shared(2);
            children.python("python-a", lockA.holding(LONG_HOLD_MIN, LONG_HOLD_MAX).behindTheLink());
            children.python("python-s", sem);
            children.node("node-b", lockB);
            children.node("node-s", sem.holding(LONG_HOLD_MIN, LONG_HOLD_MAX).behindTheLink());
            JavaHolders java = run.java();
            java.start("java-1", direct, lockA);
            java.start("java-2", behind, lockA.holding(LONG_HOLD_MIN, LONG_HOLD_MAX).behindTheLink());
            java.start("java-3", behind, lockB.holding(LONG_HOLD_MIN, LONG_HOLD_MAX).behindTheLink());
            JavaHolders.SharedOwner pair = new JavaHolders.SharedOwner("java-pair");
            Contention pairs = lockB.holding(Duration.ofMillis(300), Duration.ofMillis(1500)).idling(Duration.ofSeconds(2));
            java.start("java-pair-1", direct, pairs, pair);
            java.start("java-pair-2", direct, pairs, pair);
            java.start("java-4", direct, sem);
            java.start("java-5", direct, sem);
            java.start("java-6", behind, sem.holding(LONG_HOLD_MIN, LONG_HOLD_MAX).behindTheLink());
            BeliefRun.awaitAnswering(direct, RESOURCES);
            run.fault("the clients started before any worker ran", run.started());
            run.lap("workers answering");

            // JVMs of their own each, started once the workers run, not to slow their start. exec-1
            // shares its lock with one light Java client, so that it seldom waits: an exec that waited
            // longer than its TTL loses its lease as its job starts, on clients that date a grant from its send.
            Contention lockX = Contention.exclusive("lock-x", TTL, WAIT, Duration.ofMillis(200), Duration.ofMillis(500))
                    .idling(Duration.ofSeconds(4));
            java.start("java-7", direct, lockX);
            List<ChildClients.Child> execs = List.of(
                    children.exec("exec-1", lockX.withTtl(JOB_TTL), JOB, false),
                    children.exec("exec-2", lockB.withTtl(JOB_TTL).behindTheLink(), JOB, true));
            List<ChildClients.Child> elects = List.of(
                    children.elect("elect-1", "leader", JOB_TTL, false, JOB, true),
                    children.elect("elect-2", "leader", JOB_TTL, true, JOB, false));

            for (int round = 1; round <= rounds; round++) {
                BeliefRun.awaitQueued(direct, "frozen-py", "python-f");
                BeliefRun.awaitQueued(direct, "frozen-node", "node-f");
                CompletableFuture<Void> execFrozen = run.freezeAFreshJob(execs);
                CompletableFuture<Void> leaderFrozen = run.freezeAFreshJob(elects);

                // The link a black hole; a Python and a Node client frozen while they wait, granted
                // meanwhile (their gates open), thawed after those leases ended.
                Instant from = run.now();
                BeliefRun.freeze(pythonFrozen, nodeFrozen);
                env.brokerLink().blackhole();
                run.openGate("frozen-py");
                run.openGate("frozen-node");
                Thread.sleep(BeliefRun.FAULT.toMillis());
                env.brokerLink().heal();
                BeliefRun.thaw(pythonFrozen, nodeFrozen);
                run.fault("the broker link a black hole", from);
                run.fault("python-f frozen while it waited; granted, and that lease over, meanwhile", from);
                run.fault("node-f frozen while it waited; granted, and that lease over, meanwhile", from);
                Thread.sleep(SETTLE.toMillis());

                // The link cut, and a worker killed: another takes its partitions after the group's
                // session timeout; a new one is started for the next round.
                from = run.now();
                env.brokerLink().cut();
                workers.get(0).kill();
                workers.remove(0).close();
                if (round < rounds) {
                    workers.add(ChildWorker.start(env, topics, name + "-worker-" + (round + 2), name, Map.of()));
                }
                Thread.sleep(BeliefRun.FAULT.toMillis());
                env.brokerLink().heal();
                run.fault("the broker link cut", from);
                BeliefRun.awaitAnswering(direct, RESOURCES);
                run.fault("a worker killed (SIGKILL), its partitions taken over", from);
                execFrozen.get(60, TimeUnit.SECONDS);
                leaderFrozen.get(60, TimeUnit.SECONDS);
                run.lap("round " + round + " of " + rounds);
                Thread.sleep(SETTLE.toMillis());
                if (round < rounds) {
                    run.closeGate("frozen-py");
                    run.closeGate("frozen-node");
                }
            }
            run.stopAndCheck(1 + rounds * FAULTS_PER_ROUND, workers);
        } finally {
            for (ChildWorker worker : workers) {
                worker.close();
            }
        }
    }

    /** A client that waits for its resource alone, behind a gate: up to 90 s, so that its wait outlasts a round. */
    private static Contention waiter(String resource) {
        return new Contention(resource, TTL, Duration.ofSeconds(90), 0, Duration.ofMillis(500), Duration.ofMillis(1500),
                Duration.ofMillis(300), false);
    }
}
