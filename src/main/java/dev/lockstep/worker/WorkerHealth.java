package dev.lockstep.worker;

import dev.lockstep.store.LockStore;
import dev.lockstep.store.StoreException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Whether the worker is alive and ready, with the reasons when it is not; read from any thread
 * (the HTTP server's), written by the poll loop and the publisher.
 *
 * <ul>
 * <li><b>Live</b>: the poll loop polled within the consumer's {@code max.poll.interval.ms}; past
 * it the group has taken the partitions away and the process should be restarted.
 * <li><b>Ready</b>: partitions are assigned and every one is positioned, the database answers,
 * and the last publication the broker answered was acknowledged.
 * </ul>
 */
public final class WorkerHealth {

    /** One check's answer. */
    public record Status(boolean ok, List<String> problems) {

        public Status {
            problems = List.copyOf(problems);
        }
    }

    /** The assignment as the poll loop last left it. */
    record Partitions(int assigned, int waiting, List<String> refused) {

        static final Partitions NONE = new Partitions(0, 0, List.of());
    }

    private final Clock clock;
    private final Duration maxPollInterval;
    private final LockStore store;
    private volatile Optional<Instant> lastPoll = Optional.empty();
    private volatile Partitions partitions = Partitions.NONE;
    private volatile Optional<String> publishFailure = Optional.empty();

    WorkerHealth(Clock clock, Duration maxPollInterval, LockStore store) {
        this.clock = clock;
        this.maxPollInterval = maxPollInterval;
        this.store = store;
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
        return new Status(true, List.of());
    }

    public Status ready() {
        List<String> problems = new ArrayList<>(live().problems());
        Partitions now = partitions;
        if (now.assigned() == 0) {
            problems.add("no partition of the command topic is assigned to this worker");
        } else if (now.waiting() > 0) {
            problems.add(now.waiting() + " of " + now.assigned() + " assigned partitions are not positioned yet");
        }
        if (!now.refused().isEmpty()) {
            problems.add("partitions refused (see the log): " + String.join(", ", now.refused()));
        }
        try {
            store.ping();
        } catch (StoreException e) {
            problems.add("the database does not answer: " + e.getMessage());
        }
        publishFailure.ifPresent(reason -> problems.add("the broker did not acknowledge the last publication: " + reason));
        return new Status(problems.isEmpty(), problems);
    }
}
