package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.Quarantine;
import dev.lockstep.testclock.SetClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Liveness and readiness from what the poll loop, the assignment and the publisher reported. */
class WorkerHealthTest {

    @Test
    void liveWhilePollingWithinTheMaxPollInterval() {
        SetClock clock = new SetClock(Instant.parse("2026-12-03T10:00:00Z"));
        WorkerHealth health = new WorkerHealth(clock, Duration.ofMinutes(5), Duration.ofMinutes(2), new StubStore(), "lock.commands");
        assertThat(health.live().ok()).as("before the first poll").isFalse();
        health.polled();
        clock.advance(Duration.ofMinutes(4));
        assertThat(health.live().ok()).isTrue();
        assertThat(health.sinceLastPoll()).contains(Duration.ofMinutes(4));
        clock.advance(Duration.ofMinutes(2));
        assertThat(health.live().problems()).singleElement().asString().contains("360 s ago")
                .contains("max.poll.interval.ms (300000 ms)");
    }

    @Test
    void notLiveOnceAPartitionsRecordsHaveWaitedPastTheStallTimeoutForTheirBatchToCommit() {
        SetClock clock = new SetClock(Instant.parse("2026-12-03T10:00:00Z"));
        WorkerHealth health = new WorkerHealth(clock, Duration.ofMinutes(5), Duration.ofMinutes(2), new StubStore(), "lock.commands");
        health.polled();
        health.batchSubmitted("lock.commands-1");
        clock.advance(Duration.ofSeconds(90));
        health.polled();
        // Retried batches do not start the wait again: the records have waited since the first.
        health.batchSubmitted("lock.commands-1");
        health.batchSubmitted("lock.commands-2");
        assertThat(health.live().ok()).isTrue();
        assertThat(health.longestBatchWait()).isEqualTo(Duration.ofSeconds(90));
        clock.advance(Duration.ofSeconds(31));
        health.polled();
        assertThat(health.live().problems()).singleElement().asString().contains("lock.commands-1 (121 s)")
                .contains("stall timeout (120 s)").doesNotContain("lock.commands-2");
        health.batchCommitted("lock.commands-1");
        assertThat(health.live().ok()).isTrue();
        assertThat(health.longestBatchWait()).isEqualTo(Duration.ofSeconds(31));
        health.dropped("lock.commands-2");
        assertThat(health.longestBatchWait()).isZero();
    }

    @Test
    void readyOnlyWithPositionedPartitionsADatabaseAndAcknowledgedPublications() {
        StubStore database = new StubStore();
        WorkerHealth health = new WorkerHealth(new SetClock(Instant.parse("2026-12-03T10:00:00Z")), Duration.ofMinutes(5), Duration.ofMinutes(2), database, "lock.commands");
        health.polled();
        assertThat(health.ready().problems()).containsExactly("no partition of the command topic is assigned to this worker");
        health.partitions(new WorkerHealth.Partitions(Set.of(0, 1, 2), 2, List.of()));
        assertThat(health.ready().problems()).containsExactly("2 of 3 assigned partitions are not positioned yet");
        health.partitions(new WorkerHealth.Partitions(Set.of(0, 1, 2), 0, List.of()));
        assertThat(health.ready().ok()).isTrue();

        database.down = true;
        health.publishFailed("Timeout expired");
        health.partitions(new WorkerHealth.Partitions(Set.of(0, 1, 2), 0, List.of("lock.commands-1")));
        assertThat(health.ready().problems()).containsExactly("partitions refused (see the log): lock.commands-1",
                "the database does not answer: Connection refused",
                "the broker did not acknowledge the last publication: Timeout expired");
        database.down = false;
        health.published();
        health.partitions(new WorkerHealth.Partitions(Set.of(0, 1, 2), 0, List.of()));
        assertThat(health.ready()).isEqualTo(new WorkerHealth.Status(true, List.of()));
    }

    @Test
    void aQuarantinedPartitionOfThisWorkerIsAWarningNotAFailure() {
        StubStore database = new StubStore();
        WorkerHealth health = new WorkerHealth(new SetClock(Instant.parse("2026-12-03T10:00:00Z")), Duration.ofMinutes(5),
                Duration.ofMinutes(2), database, "lock.commands");
        health.polled();
        health.partitions(new WorkerHealth.Partitions(Set.of(1, 2), 0, List.of()));
        database.quarantined = Map.of(
                0, new Quarantine(3, 9, Optional.empty()), // another worker's: its own health says so
                2, new Quarantine(10, 42, Optional.of(Instant.parse("2026-12-03T10:15:00Z"))));
        WorkerHealth.Status ready = health.ready();
        assertThat(ready.ok()).isTrue();
        assertThat(ready.warnings()).containsExactly("lock.commands-2 is quarantined: records 10..41 were gone from "
                + "the log before they were applied; no lease is granted or renewed on it before 2026-12-03T10:15:00Z "
                + "(log time)");
        health.partitions(new WorkerHealth.Partitions(Set.of(0), 0, List.of()));
        assertThat(health.ready().warnings()).containsExactly("lock.commands-0 is quarantined: records 3..8 were gone "
                + "from the log before they were applied; no lease is granted or renewed on it until the longest TTL "
                + "has passed after its next record");
        database.quarantined = Map.of();
        assertThat(health.ready()).isEqualTo(new WorkerHealth.Status(true, List.of()));
    }
}
