package dev.lockstep.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.core.Arbiter;
import dev.lockstep.core.Command;
import dev.lockstep.core.Holders;
import dev.lockstep.core.Share;
import dev.lockstep.core.Lease;
import dev.lockstep.engine.Arbitration;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * The checker against histories made in memory: one produced by the real arbiter must pass, and
 * every kind of planted fault must be caught with a counterexample that names it.
 */
class HistoryCheckerTest {

    private static final int PARTITIONS = 3;

    static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", PARTITIONS);

    /** A copy of the arbiter with the owner check disabled: a live lease counts as the caller's. */
    private static final Arbitration OWNER_BLIND = (command, holders, now, token) -> Arbiter.decide(command,
            new Holders(holders.leases().stream().map(lease -> asOwnedBy(lease, ownerOf(command).orElse(lease.owner())))
                    .toList()), now, token);

    /** An arbiter that ignores the record's position: every new lease gets token 1. */
    private static final Arbitration FORGETFUL = (command, holders, now, token) ->
            Arbiter.decide(command, holders, now, 1);

    @Test
    void aHistoryOfTheRealArbiterPasses() {
        History history = simulate(7, Arbitration.RULES, 3_000);

        HistoryChecker.Result result = HistoryChecker.check(history);

        result.assertSafe();
        assertThat(result.leasesGranted()).as("the workload must grant many leases").isGreaterThan(100);
        assertThat(outcomes(history)).as("the workload must contend").contains("not_acquired", "forbidden",
                "released", "renewed", "locked", "not_found");
    }

    @Test
    void waitersOfTheRealEngineAreServedInTheOrderTheyQueued() {
        History history = simulate(13, Arbitration.RULES, 3_000);

        HistoryChecker.check(history).assertSafe();
        assertThat(history.replies().values().stream().flatMap(List::stream)
                .map(r -> new String(r, StandardCharsets.UTF_8)))
                .as("waits that ended, and waiters granted").anyMatch(r -> r.contains("\"reason\":\"wait_expired\""));
    }

    @Test
    void aWaiterGrantedBeforeAnEarlierOneIsCaught() {
        History fair = simulate(13, Arbitration.RULES, 3_000);
        // Two waiters of one resource, both granted: the earlier one told the later one's token, and back.
        Map<String, List<byte[]>> replies = new HashMap<>(fair.replies());
        List<String> granted = grantedWaiters(fair);
        assertThat(granted).as("the workload grants waiters").hasSizeGreaterThanOrEqualTo(2);
        String earlier = granted.get(0);
        String later = granted.get(1);
        String earlierToken = token(fair.replies().get(earlier).get(0));
        String laterToken = token(fair.replies().get(later).get(0));
        replies.put(earlier, withToken(fair.replies().get(earlier), earlierToken, laterToken));
        replies.put(later, withToken(fair.replies().get(later), laterToken, earlierToken));

        HistoryChecker.Result result = HistoryChecker.check(new History(fair.sent(), fair.log(), replies));

        assertThat(result.violations()).anyMatch(v -> v.contains(later) && v.contains("granted out of queue order"));
    }

    private static String token(byte[] reply) {
        String json = new String(reply, StandardCharsets.UTF_8);
        int at = json.indexOf("\"fencing_token\":");
        return json.substring(at, json.indexOf(',', at));
    }

    private static List<byte[]> withToken(List<byte[]> replies, String from, String to) {
        return replies.stream().map(r -> new String(r, StandardCharsets.UTF_8).replace(from, to)
                .getBytes(StandardCharsets.UTF_8)).toList();
    }

    /** The request IDs of waiting acquires granted on the busiest resource, in log order. */
    private static List<String> grantedWaiters(History history) {
        Map<String, List<String>> byResource = new HashMap<>();
        history.log().stream().filter(record -> record.value() != null)
                .sorted(java.util.Comparator.comparingLong(LoggedRecord::offset)).forEach(record -> {
            String json = new String(record.value(), StandardCharsets.UTF_8);
            String id = requestIdOf(record);
            List<byte[]> got = history.replies().getOrDefault(id, List.of());
            if (json.contains("\"wait_ms\"") && !got.isEmpty()
                    && new String(got.get(0), StandardCharsets.UTF_8).contains("\"outcome\":\"acquired\"")
                    && !json.contains("\"owner\":\"runner-0\"")) {
                byResource.computeIfAbsent(new String(record.key(), StandardCharsets.UTF_8), r -> new ArrayList<>()).add(id);
            }
        });
        return byResource.values().stream().filter(ids -> ids.size() >= 2)
                .max(java.util.Comparator.comparingInt(List::size)).orElse(List.of());
    }

    /** An arbiter that forgets what an acquire publishes: a leader whose observers would see no address. */
    private static final Arbitration VALUELESS = (command, holders, now, token) -> Arbiter.decide(
            command instanceof Command.Acquire a ? new Command.Acquire(a.requestId(), a.resource(), a.owner(), a.ttl(),
                    a.maxWait(), a.share()) : command, holders, now, token);

    @Test
    void anArbiterThatDropsALeadersValueIsCaught() {
        HistoryChecker.Result result = HistoryChecker.check(simulate(7, VALUELESS, 3_000));

        assertThat(result.violations()).anyMatch(v -> v.contains("asked for value Optional[runner-")
                && v.contains("but its lease publishes Optional.empty"));
    }

    @Test
    void theOwnerBlindArbiterIsCaught() {
        HistoryChecker.Result result = HistoryChecker.check(simulate(7, OWNER_BLIND, 3_000));

        assertThat(result.violations()).anyMatch(v -> v.contains("two owners told they hold one lease"));
        assertThatThrownBy(result::assertSafe).isInstanceOf(AssertionError.class).hasMessageContaining("violation");
    }

    @Test
    void fencingTokensThatStartOverAreCaught() {
        HistoryChecker.Result result = HistoryChecker.check(simulate(11, FORGETFUL, 3_000));

        assertThat(result.violations()).anyMatch(v -> v.contains("fencing token did not grow"));
    }

    @Test
    void overlappingLeasesAreCaught() {
        // A worker that grants a second lease while the first runs, with a fresh token.
        Arbitration overlapping = (command, holders, now, token) -> command instanceof Command.Acquire
                ? Arbiter.decide(command, new Holders(holders.leases().stream().map(l -> new Lease(l.resource(),
                        l.owner(), l.fencingToken(), l.acquiredAt(), l.acquiredAt())).toList()), now, token)
                : Arbiter.decide(command, holders, now, token);

        HistoryChecker.Result result = HistoryChecker.check(simulate(13, overlapping, 3_000));

        assertThat(result.violations()).anyMatch(v -> v.contains("two leases overlap"));
    }

    @Test
    void aLostReplyIsCaught() {
        History history = simulate(3, Arbitration.RULES, 200);
        Map<String, List<byte[]>> replies = new HashMap<>(history.replies());
        String lost = replies.keySet().iterator().next();
        replies.remove(lost);

        HistoryChecker.Result result = HistoryChecker.check(new History(history.sent(), history.log(), replies));

        assertThat(result.violations()).anyMatch(v -> v.contains(lost) && v.contains("never answered"));
    }

    @Test
    void aCommandLostBetweenBrokerAndLogIsCaught() {
        History history = simulate(3, Arbitration.RULES, 200);
        Set<String> sent = new HashSet<>(history.sent());
        sent.add("acknowledged-but-gone");

        HistoryChecker.Result result = HistoryChecker.check(new History(sent, history.log(), history.replies()));

        assertThat(result.violations()).anyMatch(v -> v.contains("acknowledged-but-gone") && v.contains("not in the command log"));
    }

    @Test
    void aSecondDifferentReplyToOneRequestIsCaught() {
        History history = simulate(3, Arbitration.RULES, 200);
        Map<String, List<byte[]>> replies = new HashMap<>(history.replies());
        String twice = replies.keySet().iterator().next();
        List<byte[]> both = new ArrayList<>(replies.get(twice));
        both.add(("{\"request_id\":\"" + twice + "\",\"outcome\":\"not_found\"}").getBytes(StandardCharsets.UTF_8));
        replies.put(twice, both);

        HistoryChecker.Result result = HistoryChecker.check(new History(history.sent(), history.log(), replies));

        assertThat(result.violations()).anyMatch(v -> v.contains(twice) && v.contains("different replies"));
    }

    @Test
    void aRedeliveredCommandMayBeAnsweredTwiceIdentically() {
        History history = simulate(5, Arbitration.RULES, 300);
        List<LoggedRecord> log = new ArrayList<>(history.log());
        Map<String, List<byte[]>> replies = new HashMap<>(history.replies());
        LoggedRecord again = log.get(10);
        long nextOffset = log.stream().filter(r -> r.partition() == again.partition())
                .mapToLong(LoggedRecord::offset).max().orElseThrow() + 1;
        Instant last = log.stream().map(LoggedRecord::logAppendTime).max(Instant::compareTo).orElseThrow();
        log.add(new LoggedRecord(again.partition(), nextOffset, last.plusSeconds(1), again.key(), again.value()));
        String requestId = requestIdOf(again);
        List<byte[]> twice = new ArrayList<>(replies.get(requestId));
        twice.add(twice.get(0));
        replies.put(requestId, twice);

        HistoryChecker.check(new History(history.sent(), log, replies)).assertSafe();
    }

    /**
     * A waiter's grant and a renew of it at the same log time, by two records: the grant's reply
     * is observed after the renew's (it is ordered as waited), yet the renew's expiry is the
     * lease's (seed 200 once reported an overlap that was not one), over many seeds.
     */
    @Test
    void manyHistoriesWithCancellationsAreSafe() {
        for (long seed = 190; seed < 230; seed++) {
            HistoryChecker.check(simulate(seed, Arbitration.RULES, 3_000, true)).assertSafe();
        }
    }

    /** Semaphores of two and a read-write lock beside locks: at most two holders, never a writer among readers. */
    @Test
    void sharedHistoriesAreSafe() {
        for (long seed = 1; seed < 20; seed++) {
            History history = simulate(seed, Arbitration.RULES, 3_000, true, true);
            HistoryChecker.Result result = HistoryChecker.check(history);
            result.assertSafe();
            assertThat(outcomes(history)).contains("acquired", "not_acquired");
        }
    }

    /** A worker blind to the holders of a shared resource grants more than its limit: caught. */
    @Test
    void anOverGrantIsCaught() {
        Arbitration blind = (command, holders, now, token) -> command instanceof Command.Acquire a
                && !a.share().exclusive() ? Arbiter.decide(command, Holders.NONE, now, token)
                : Arbiter.decide(command, holders, now, token);
        HistoryChecker.Result result = HistoryChecker.check(simulate(7, blind, 3_000, false, true));
        assertThat(result.violations()).anyMatch(v -> v.contains("more holders than its limit of 2"));
    }

    /**
     * A waiter granted by a record at the same log time as its owner's next acquire, which extends
     * the lease to a shorter end: the extension's reply sorts first (it is not a waiter's), but it
     * came after the grant in the log, and its end stands. A lease granted after that end is no
     * overlap. (Seen as a false violation in a cluster fault run, where failover bunches records
     * at one log time.)
     */
    @Test
    void anExtensionAtTheInstantOfAWaitersGrantSetsItsEnd() {
        Instant t0 = Instant.parse("2026-12-06T18:23:20Z");
        Instant t1 = t0.plusSeconds(1);
        List<Command> commands = List.of(
                new Command.Acquire("hold", "job", "client-x", Duration.ofSeconds(10)),
                new Command.Acquire("wait", "job", "client-6", Duration.ofSeconds(2), Duration.ofSeconds(5)),
                new Command.Release("free", "job", "client-x", OptionalLong.empty()),
                new Command.Acquire("again", "job", "client-6", Duration.ofSeconds(1)),
                new Command.Acquire("next", "job", "client-4", Duration.ofSeconds(1)));
        List<Instant> times = List.of(t0, t0, t1, t1, t1.plusMillis(1_500));
        List<LoggedRecord> log = new ArrayList<>();
        int partition = Utils.toPositive(Utils.murmur2(CommandEncoder.key(commands.get(0)))) % PARTITIONS;
        for (int i = 0; i < commands.size(); i++) {
            log.add(new LoggedRecord(partition, i, times.get(i), CommandEncoder.key(commands.get(i)),
                    CommandEncoder.encode(commands.get(i), Optional.empty())));
        }
        History history = decided(Set.of("hold", "wait", "free", "again", "next"), log, Arbitration.RULES);
        assertThat(new String(history.replies().get("next").get(0), StandardCharsets.UTF_8))
                .as("the engine granted it: the extension ended client-6's lease at t1 + 1 s").contains("\"acquired\"");

        HistoryChecker.check(history).assertSafe();
    }

    /** A worker that gives a semaphore's holders one token between them (as one record's grants once did): caught. */
    @Test
    void permitsSharingATokenAreCaught() {
        Arbitration oneToken = (command, holders, now, token) -> command instanceof Command.Acquire a
                && !a.share().exclusive() && !holders.liveAt(now.passed()).isEmpty()
                ? Arbiter.decide(command, holders, now, holders.liveAt(now.passed()).get(0).fencingToken())
                : Arbiter.decide(command, holders, now, token);
        HistoryChecker.Result result = HistoryChecker.check(simulate(7, oneToken, 3_000, false, true));
        assertThat(result.violations()).anyMatch(v -> v.contains("two grants share a token"));
    }

    /** A worker that takes a writer for a reader lets it in among the readers: caught. */
    @Test
    void aWriterAmongReadersIsCaught() {
        Arbitration readerForWriter = (command, holders, now, token) -> command instanceof Command.Acquire a
                && a.share().exclusive() && a.resource().equals("job-4")
                ? Arbiter.decide(new Command.Acquire(a.requestId(), a.resource(), a.owner(), a.ttl(), a.maxWait(),
                        Share.shared(Share.MAX_LIMIT)), holders, now, token)
                : Arbiter.decide(command, holders, now, token);
        HistoryChecker.Result result = HistoryChecker.check(simulate(7, readerForWriter, 3_000, false, true));
        assertThat(result.violations()).anyMatch(v -> v.contains("asked for Share[mode=EXCLUSIVE, limit=1]"));
    }

    /** Clients on a few contended resources with short TTLs, answered by {@code arbitration}. */
    static History simulate(long seed, Arbitration arbitration, int commands) {
        return simulate(seed, arbitration, commands, false, false);
    }

    static History simulate(long seed, Arbitration arbitration, int commands, boolean cancelling) {
        return simulate(seed, arbitration, commands, cancelling, false);
    }

    /**
     * @param cancelling whether some callers give up on their acquires and cancel them
     * @param sharing whether some resources are shared: job-2 and job-3 semaphores of 2, job-4 a
     *     read-write lock (readers and writers at random)
     */
    static History simulate(long seed, Arbitration arbitration, int commands, boolean cancelling, boolean sharing) {
        Random random = new Random(seed);
        List<LoggedRecord> log = new ArrayList<>();
        long[] offsets = new long[PARTITIONS];
        Instant time = Instant.parse("2026-12-02T12:00:00Z");
        Set<String> sent = new HashSet<>();
        List<Command.Acquire> acquires = new ArrayList<>();
        for (int i = 0; i < commands; i++) {
            time = time.plusMillis(random.nextInt(60));
            String requestId = "req-" + seed + "-" + i;
            String resource = "job-" + random.nextInt(5);
            String owner = "runner-" + random.nextInt(4);
            Duration ttl = Duration.ofSeconds(1 + random.nextInt(2));
            int dice = random.nextInt(100);
            Command command = dice < 15 ? new Command.Acquire(requestId, resource, owner, ttl,
                    Duration.ofMillis(200 + random.nextInt(3_000)))
                    : dice < 45 ? new Command.Acquire(requestId, resource, owner, ttl)
                    : dice < 65 ? new Command.Renew(requestId, resource, owner, ttl, OptionalLong.empty())
                    : dice < 90 ? new Command.Release(requestId, resource, owner, OptionalLong.empty())
                    : new Command.Status(requestId, resource);
            if (sharing && command instanceof Command.Acquire plain && !resource.equals("job-0")
                    && !resource.equals("job-1")) {
                Share share = resource.equals("job-4")
                        ? (random.nextBoolean() ? Share.EXCLUSIVE : Share.shared(Share.MAX_LIMIT)) : Share.shared(2);
                command = new Command.Acquire(requestId, resource, owner, ttl, plain.maxWait(), share);
            }
            if (command instanceof Command.Acquire plain && resource.equals("job-0")) {
                // job-0 is a leader election: its leases publish a value.
                command = new Command.Acquire(requestId, resource, owner, ttl, plain.maxWait(), plain.share(),
                        Optional.of(owner + ":8080"));
            }
            if (cancelling && dice >= 90 && dice < 96 && !acquires.isEmpty()) {
                // A caller that gave up on an acquire: its cancellation, as the clients send it.
                command = Command.Release.cancelling(requestId, acquires.get(random.nextInt(acquires.size())));
            } else if (command instanceof Command.Acquire acquire) {
                acquires.add(acquire);
            }
            int partition = Utils.toPositive(Utils.murmur2(CommandEncoder.key(command))) % PARTITIONS;
            log.add(new LoggedRecord(partition, offsets[partition]++, time, CommandEncoder.key(command),
                    CommandEncoder.encode(command, Optional.empty())));
            sent.add(requestId);
        }
        // The worker's ticks once everything has ended: the last waits are answered.
        for (int partition = 0; partition < PARTITIONS; partition++) {
            log.add(new LoggedRecord(partition, offsets[partition]++, time.plusSeconds(10), null, null));
        }
        return decided(sent, log, arbitration);
    }

    /**
     * The history of a worker that decides {@code log} by {@code arbitration}: each partition's
     * records through the engine's driver in log order (a record without key and value is a tick),
     * the hand-overs they ask for landing right after them, at the same log time. The history's log
     * is the drivers': the records given, renumbered, and the hand-overs among them.
     */
    static History decided(Set<String> sent, List<LoggedRecord> log, Arbitration arbitration) {
        PartitionMachine machine = new PartitionMachine(SETTINGS, arbitration);
        Map<Integer, PartitionDriver> partitions = new TreeMap<>();
        Map<String, List<byte[]>> replies = new HashMap<>();
        for (LoggedRecord record : log) {
            PartitionDriver partition = partitions.computeIfAbsent(record.partition(), p -> PartitionDriver.worker(
                    machine, PartitionState.empty(PartitionPosition.START), "log", p).observe((in, step) ->
                            // Every reply the record made: its own, and those of the waiters it decided.
                            step.all().forEach(out -> {
                                if (out instanceof Outbound.ReplyRecord reply) {
                                    replies.computeIfAbsent(reply.requestId(), id -> new ArrayList<>()).add(reply.value());
                                }
                            })));
            if (record.key() == null && record.value() == null) {
                partition.tick(record.logAppendTime());
            } else {
                partition.append(record.key(), record.value(), InboundHeaders.NONE, Optional.of(record.logAppendTime()));
            }
            partition.deliverAll(record.logAppendTime());
        }
        List<LoggedRecord> appended = new ArrayList<>();
        partitions.values().forEach(partition -> partition.log().forEach(in -> appended.add(new LoggedRecord(
                in.partition(), in.offset(), in.logAppendTime().orElseThrow(), in.key(), in.value()))));
        return new History(sent, appended, replies);
    }

    private static Lease asOwnedBy(Lease lease, String owner) {
        return new Lease(lease.resource(), owner, lease.fencingToken(), lease.acquiredAt(), lease.expiresAt());
    }

    private static Optional<String> ownerOf(Command command) {
        if (command instanceof Command.Acquire a) {
            return Optional.of(a.owner());
        } else if (command instanceof Command.Renew r) {
            return Optional.of(r.owner());
        } else if (command instanceof Command.Release r) {
            return Optional.of(r.owner());
        }
        return Optional.empty();
    }

    private static Set<String> outcomes(History history) {
        Set<String> outcomes = new HashSet<>();
        history.replies().values().forEach(list -> list.forEach(r -> {
            String json = new String(r, StandardCharsets.UTF_8);
            int at = json.indexOf("\"outcome\":\"") + 11;
            outcomes.add(json.substring(at, json.indexOf('"', at)));
        }));
        return outcomes;
    }

    private static String requestIdOf(LoggedRecord record) {
        return dev.lockstep.testkit.Commands.parse(record.value()).path("request_id").asText();
    }
}
