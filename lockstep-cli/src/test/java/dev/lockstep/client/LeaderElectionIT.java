package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LeaderElection.Leadership;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.TopicCollector;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link LeaderElection} on a real broker and database: one leader at a time, in the order the
 * candidates campaigned, each term a greater token; the leader's value reaches observers through
 * a status and the events topic, which says {@code vacant} when nobody leads; a deposed leader
 * hears of it and campaigns again; a replay reproduces every reply and event.
 */
class LeaderElectionIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static LockClient client;

    @BeforeAll
    static void start() {
        env.startWorker();
        client = env.startClient();
    }

    /** What a candidate's listener heard, in order: "gained 7" or "lost 7 RESIGNED". */
    private static final class Heard implements LeaderElection.Listener {
        final List<String> said = new CopyOnWriteArrayList<>();

        @Override
        public void gained(Leadership leadership) {
            said.add("gained " + leadership.term());
        }

        @Override
        public void lost(Leadership leadership, LeaseLost.Reason why) {
            said.add("lost " + leadership.term() + " " + why);
        }
    }

    /** A listener that hears as {@link Heard} does, then throws, every time. */
    private static final class Throwing implements LeaderElection.Listener {
        final Heard heard = new Heard();

        @Override
        public void gained(Leadership leadership) {
            heard.gained(leadership);
            throw new IllegalStateException("the listener's bug, on gaining term " + leadership.term());
        }

        @Override
        public void lost(Leadership leadership, LeaseLost.Reason why) {
            heard.lost(leadership, why);
            throw new IllegalStateException("the listener's bug, on losing term " + leadership.term());
        }
    }

    private static LeaderElection candidate(String group, String id, LeaderElection.Listener heard) {
        return LeaderElection.of(client, group, id, Duration.ofSeconds(10), Optional.of(id + ":8080"), heard);
    }

    @Test
    void candidatesLeadOneAfterTheOtherAndObserversSeeEachTermAndTheVacancy() throws Exception {
        Heard heardA = new Heard();
        Heard heardB = new Heard();
        try (TopicCollector events = env.collect(env.topics().events());
                LeaderElection a = candidate("scheduler", "host-a", heardA);
                LeaderElection b = candidate("scheduler", "host-b", heardB)) {
            Leadership first = a.campaign().get(30, TimeUnit.SECONDS);
            assertThat(first.value()).contains("host-a:8080");
            var second = b.campaign();
            await().atMost(Duration.ofSeconds(30)).until(() -> ((Verdict.Locked) client.blocking().status("scheduler"))
                    .waiters() == 1);
            assertThat(a.isLeader()).isTrue();
            assertThat(b.isLeader()).isFalse();
            Leader observed = Leader.of("scheduler", client.blocking().status("scheduler"));
            assertThat(observed).isEqualTo(new Leader("scheduler", Optional.of("host-a"), first.term(),
                    Optional.of("host-a:8080")));

            a.resign().get(30, TimeUnit.SECONDS);
            Leadership next = second.get(30, TimeUnit.SECONDS);
            assertThat(next.term()).isGreaterThan(first.term());
            assertThat(a.isLeader()).isFalse();
            assertThat(heardA.said).containsExactly("gained " + first.term(), "lost " + first.term() + " RESIGNED");
            assertThat(heardB.said).containsExactly("gained " + next.term());

            b.resign().get(30, TimeUnit.SECONDS);
            List<LeaseEvent> seen = events.await(r -> EventCodec.decode(r.value()).resource().equals("scheduler")
                    && EventCodec.decode(r.value()).kind() == LeaseEvent.Kind.VACANT, 1).stream()
                    .map(r -> EventCodec.decode(r.value())).filter(e -> e.resource().equals("scheduler")).toList();
            Leader followed = Leader.vacant("scheduler");
            for (LeaseEvent event : seen) {
                followed = followed.after(event);
            }
            assertThat(followed.isVacant()).as("a follower of the events sees the vacancy").isTrue();
            assertThat(followed.term()).isEqualTo(next.term());
            assertThat(seen.stream().filter(e -> e.kind() == LeaseEvent.Kind.VACANT))
                    .as("a vacancy only when nobody waited: B took over at A's resignation").hasSize(1);
            assertThat(client.blocking().status("scheduler")).isEqualTo(new Verdict.NotFound());
        }
        assertReplayed();
    }

    @Test
    void aDeposedLeaderHearsOfItAndCampaignsAgain() throws Exception {
        Heard heard = new Heard();
        try (LeaderElection a = candidate("deposed", "host-a", heard)) {
            Leadership first = a.campaign().get(30, TimeUnit.SECONDS);
            // An operator ends the term behind its back (as the worker would after a partition from it).
            assertThat(client.blocking().release("deposed", "host-a", OptionalLong.of(first.term())))
                    .isEqualTo(new Verdict.Released());
            await().atMost(Duration.ofSeconds(30)).until(() -> heard.said.size() >= 3);
            assertThat(heard.said.get(0)).isEqualTo("gained " + first.term());
            assertThat(heard.said.get(1)).isEqualTo("lost " + first.term() + " NOT_FOUND");
            assertThat(heard.said.get(2)).startsWith("gained ");
            assertThat(a.leadership().orElseThrow().term()).isGreaterThan(first.term());
        }
        assertThat(heard.said.get(3)).endsWith("RESIGNED");
    }

    @Test
    void aListenerThatThrowsChangesNothing() throws Exception {
        Throwing listener = new Throwing();
        LeaderElection a = candidate("throwing", "host-a", listener);
        Leadership first = a.campaign().get(15, TimeUnit.SECONDS);
        assertThat(a.isLeader()).as("it leads though its listener threw on hearing so").isTrue();

        assertThat(client.blocking().release("throwing", "host-a", OptionalLong.of(first.term())))
                .isEqualTo(new Verdict.Released());
        await("deposed, it campaigns again, though its listener threw on hearing it lost")
                .atMost(Duration.ofSeconds(30)).until(() -> listener.heard.said.size() >= 3);
        assertThat(listener.heard.said.subList(0, 3)).containsExactly("gained " + first.term(),
                "lost " + first.term() + " NOT_FOUND", "gained " + a.leadership().orElseThrow().term());
        assertThat(a.leadership().orElseThrow().term()).isGreaterThan(first.term());

        a.resign().get(15, TimeUnit.SECONDS);
        assertThat(listener.heard.said).hasSize(4).last().asString().endsWith("RESIGNED");
        assertThat(client.blocking().status("throwing")).as("it released its lease").isEqualTo(new Verdict.NotFound());
    }

    @Test
    void aCandidateThatResignsWhileWaitingLeavesTheQueue() throws Exception {
        try (LeaderElection a = candidate("queue", "host-a", new Heard());
                LeaderElection b = candidate("queue", "host-b", new Heard())) {
            a.campaign().get(30, TimeUnit.SECONDS);
            var waiting = b.campaign();
            await().atMost(Duration.ofSeconds(30)).until(() -> ((Verdict.Locked) client.blocking().status("queue"))
                    .waiters() == 1);
            b.resign().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> ((Verdict.Locked) client.blocking().status("queue"))
                    .waiters() == 0);
            assertThat(waiting).isCompletedExceptionally();
            a.resign().get(30, TimeUnit.SECONDS);
            assertThat(client.blocking().status("queue")).as("B never led").isEqualTo(new Verdict.NotFound());
        }
    }

    private static void assertReplayed() {
        ReplayReport replay = new Replay(env.kafka(), env.database(), env.topics())
                .run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
        assertThat(replay.divergences()).as(replay.text()).isEmpty();
    }
}
