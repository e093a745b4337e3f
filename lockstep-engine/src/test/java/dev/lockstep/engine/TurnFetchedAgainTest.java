package dev.lockstep.engine;

import static dev.lockstep.engine.JobPartition.T0;
import static dev.lockstep.engine.JobPartition.acquire;
import static dev.lockstep.engine.JobPartition.release;
import static dev.lockstep.engine.JobPartition.verdict;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A holding owner's waiter's turn where it meets a record fetched again. */
class TurnFetchedAgainTest {

    private final JobPartition partition = new JobPartition(Duration.ZERO);

    /**
     * protocol.md, "Lease events" / "The log is the truth": a record fetched again is answered as it
     * was. Owner A waits twice: a shared acquire, then an exclusive one (no mode is checked against a
     * waiter of its own owner when it joins). X's release grants the shared one; the exclusive one's
     * turn ("one owner waiting twice") comes at A's retry of it, before the hand-over lands, and is
     * answered {@code invalid} (another share than it holds). That retry got no answer of its own
     * (the acquire waited when it came). Fetched again, {@code Answers.decidedAfter} only treats an
     * {@code acquired} decision at the same record as made after the record's command, so the retry
     * is now answered with the stored {@code invalid}: one reply more than the first time.
     */
    @Test
    void aRetryAtTheRecordThatAnswersItsWaiterInvalidGetsNoAnswerOfItsOwnFetchedAgainToo() {
        partition.at(T0, acquire("x", "X", 60, 0));
        partition.at(T0.plusSeconds(1), acquire("a1", "A", 60, 60_000, ",\"limit\":2"));
        partition.at(T0.plusSeconds(1), acquire("a2", "A", 60, 60_000));
        Step released = partition.at(T0.plusSeconds(2), release("rx", "X"));
        assertThat(released.deferred()).extracting(Outbound.ReplyRecord::requestId).containsExactly("a1");
        assertThat(released.handOvers()).as("a2's turn is due").hasSize(1);

        Step retry = partition.at(T0.plusSeconds(3), acquire("a2", "A", 60, 60_000));
        assertThat(retry.answer()).as("a retry of an acquire that waits gets nothing of its own").isEmpty();
        assertThat(retry.deferred()).singleElement().satisfies(reply -> {
            assertThat(reply.requestId()).isEqualTo("a2");
            assertThat(verdict(reply)).isInstanceOf(Verdict.Invalid.class);
        });

        Step again = partition.driver.apply(partition.last());

        assertThat(again.answer()).as("fetched again, answered as it was: nothing of its own").isEmpty();
        assertThat(again.deferred()).extracting(Outbound.ReplyRecord::value)
                .containsExactlyElementsOf(retry.deferred().stream().map(Outbound.ReplyRecord::value).toList());
    }
}
