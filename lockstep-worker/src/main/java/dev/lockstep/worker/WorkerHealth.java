package dev.lockstep.worker;

import dev.lockstep.engine.Quarantine;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether the worker is alive and ready, with the reasons when it is not; read from any thread
 * (the HTTP server's), written by the poll loop and the publisher.
 *
 * <ul>
 * <li><b>Live</b>: the poll loop polled within the consumer's {@code max.poll.interval.ms}; past
 * it the group has taken the partitions away and the process should be restarted. And no
 * partition's records have waited longer than the stall timeout for their batch to commit: the
 * database hangs (a frozen backend holding the partition's row, past every timeout) or keeps
 * failing, and the worker cannot answer that partition's callers.
 * <li><b>Ready</b>: partitions are assigned and every one is positioned, the database answers,
 * and the last publication the broker answered was acknowledged. A quarantined partition (records
 * lost from the log before they were applied) is a warning, not a failure: the worker answers it
 * correctly, refusing grants until the lost records' leases have surely ended, and a failed check
 * would take a gateway in the same process out of service for every partition. So is a producer's
 * transaction the worker aborted, or failed to abort, in the last ten minutes.
 * </ul>
 */
public final class WorkerHealth {

    /** One check's answer: failed with problems, or passed, perhaps with warnings an operator should read. */
    public record Status(boolean ok, List<String> problems, List<String> warnings) {

        public Status {
            problems = List.copyOf(problems);
            warnings = List.copyOf(warnings);
        }

        public Status(boolean ok, List<String> problems) {
            this(ok, problems, List.of());
        }
    }

    /** The assignment as the poll loop last left it: the command topic's partitions assigned, how many wait to be positioned. */
    record Partitions(Set<Integer> assigned, int waiting, List<String> refused) {

        static final Partitions NONE = new Partitions(Set.of(), 0, List.of());

        Partitions {
            assigned = Set.copyOf(assigned);
            refused = List.copyOf(refused);
        }
    }

    private final Clock clock;
    private final Duration maxPollInterval;
    private final LockStore store;
    private final String commandTopic;
    private volatile Optional<Instant> lastPoll = Optional.empty();
    private volatile Partitions partitions = Partitions.NONE;
    private volatile Optional<String> publishFailure = Optional.empty();
    private volatile List<String> transactionWarnings = List.of();
    private volatile List<String> clockWarnings = List.of();
    private volatile Optional<String> growthWarning = Optional.empty();
    private final Duration stallTimeout;
    /** Per partition, when its oldest records not yet committed were first handed to a batch. */
    private final Map<String, Instant> waitingSince = new ConcurrentHashMap<>();

    WorkerHealth(Clock clock, Duration maxPollInterval, Duration stallTimeout, LockStore store, String commandTopic) {
        this.clock = clock;
        this.commandTopic = commandTopic;
        this.maxPollInterval = maxPollInterval;
        this.stallTimeout = stallTimeout;
        this.store = store;
    }

    /** A batch of the partition was handed to an apply thread (a first attempt, or a retry). */
    void batchSubmitted(String partition) {
        waitingSince.putIfAbsent(partition, clock.instant());
    }

    /** A batch of the partition committed: nothing of it waits any more. */
    void batchCommitted(String partition) {
        waitingSince.remove(partition);
    }

    /** The partition is no longer this worker's. */
    void dropped(String partition) {
        waitingSince.remove(partition);
    }

    /** How long the records that have waited longest for their batch to commit have waited; zero when none waits. */
    public Duration longestBatchWait() {
        Instant now = clock.instant();
        return waitingSince.values().stream().map(since -> Duration.between(since, now)).max(Duration::compareTo)
                .orElse(Duration.ZERO);
    }

    void polled() {
        lastPoll = Optional.of(clock.instant());
    }

    void partitions(Partitions now) {
        partitions = now;
    }

    void published() {
        publishFailure = Optional.empty();
    }

    void publishFailed(String reason) {
        publishFailure = Optional.of(reason);
    }

    /** What the transaction watch did lately ({@link StuckTransactions}): warnings, not failures. */
    void transactionWarnings(List<String> now) {
        transactionWarnings = List.copyOf(now);
    }

    /** Records stamped outside a bound of the worker's clock, lately ({@link ClockWatch}): warnings, not failures. */
    void clockWarnings(List<String> now) {
        clockWarnings = List.copyOf(now);
    }

    /** A growth of the command topic under way, as the growth keeper last saw it: a warning while it lasts. */
    void growth(Optional<String> underWay) {
        growthWarning = underWay;
    }

    /** Seconds since the poll loop last polled; empty before the first poll. */
    public Optional<Duration> sinceLastPoll() {
        return lastPoll.map(at -> Duration.between(at, clock.instant()));
    }

    public Status live() {
        Optional<Duration> since = sinceLastPoll();
        if (since.isEmpty()) {
            return new Status(false, List.of("the poll loop has not polled yet"));
        }
        if (since.get().compareTo(maxPollInterval) > 0) {
            return new Status(false, List.of("the poll loop last polled " + since.get().toSeconds()
                    + " s ago, more than max.poll.interval.ms (" + maxPollInterval.toMillis() + " ms)"));
        }
        Instant now = clock.instant();
        List<String> stalled = waitingSince.entrySet().stream()
                .filter(e -> Duration.between(e.getValue(), now).compareTo(stallTimeout) > 0)
                .map(e -> e.getKey() + " (" + Duration.between(e.getValue(), now).toSeconds() + " s)").sorted().toList();
        if (!stalled.isEmpty()) {
            return new Status(false, List.of("records have waited longer than the stall timeout ("
                    + stallTimeout.toSeconds() + " s) for their batch to commit, on " + String.join(", ", stalled)
                    + ": the database hangs or keeps failing (see the log)"));
        }
        return new Status(true, List.of());
    }

    public Status ready() {
        List<String> problems = new ArrayList<>(live().problems());
        Partitions now = partitions;
        if (now.assigned().isEmpty()) {
            problems.add("no partition of the command topic is assigned to this worker");
        } else if (now.waiting() > 0) {
            problems.add(now.waiting() + " of " + now.assigned().size() + " assigned partitions are not positioned yet");
        }
        if (!now.refused().isEmpty()) {
            problems.add("partitions refused (see the log): " + String.join(", ", now.refused()));
        }
        List<String> warnings = new ArrayList<>(transactionWarnings);
        warnings.addAll(clockWarnings);
        growthWarning.ifPresent(warnings::add);
        try {
            store.ping();
            store.quarantines(commandTopic).entrySet().stream()
                    .filter(e -> now.assigned().contains(e.getKey()))
                    .map(e -> quarantined(e.getKey(), e.getValue())).forEach(warnings::add);
        } catch (StoreException e) {
            problems.add("the database does not answer: " + e.getMessage());
        }
        publishFailure.ifPresent(reason -> problems.add("the broker did not acknowledge the last publication: " + reason));
        return new Status(problems.isEmpty(), problems, warnings);
    }

    private String quarantined(int partition, Quarantine quarantine) {
        return commandTopic + "-" + partition + " is quarantined: records " + quarantine.lostFrom() + ".."
                + (quarantine.lostTo() - 1) + " were gone from the log before they were applied; no lease is granted "
                + "or renewed on it " + quarantine.until().map(end -> "before " + end + " (log time)")
                        .orElse("until the longest TTL has passed after its next record");
    }
}
