package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a candidate's listener hears: each change once, one call at a time, in the order the
 * election changed, whatever came first (a validity that ran out unnoticed) and whatever follows
 * (a resignation during a call, the client closing). {@link MockBroker} stands in for the broker.
 */
class ElectionListenerTest {

    private final MockBroker broker = new MockBroker();
    private final LockClient client = broker.client(Duration.ofSeconds(10));
    private final List<String> told = new CopyOnWriteArrayList<>();
    /** Whether the listener is being told of a gain: a call made then runs beside it. */
    private final AtomicBoolean telling = new AtomicBoolean();
    private CountDownLatch letGainedEnd = new CountDownLatch(0);

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aResignationIsToldAfterTheTermItEndsNotBesideIt() throws Exception {
        letGainedEnd = new CountDownLatch(1);
        LeaderElection election = campaigning(Duration.ofSeconds(30));
        win(election, "2026-12-07T10:00:30.000Z");
        await().atMost(Duration.ofSeconds(5)).untilTrue(telling);

        election.resign();
        letGainedEnd.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 2);
        assertThat(told).containsExactly("gained 7", "lost 7 RESIGNED");
    }

    /** The leader's validity passes while the client's timer thread is held up (a pause), and it resigns. */
    @Test
    void aLeaderWhoseValidityPassedUnnoticedAndThenResignsIsToldItsTermEnded() throws Exception {
        LeaderElection election = campaigning(Duration.ofSeconds(1));
        win(election, "2026-12-07T10:00:01.000Z");
        await().atMost(Duration.ofSeconds(5)).until(() -> told.equals(List.of("gained 7")));
        CountDownLatch resume = new CountDownLatch(1);
        client.scheduler().execute(() -> awaitQuietly(resume));
        Thread.sleep(1_200); // past the local validity, 0.9 s

        election.resign();
        resume.countDown();

        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(told)
                .as("the listener hears that term 7 ended, resigned or expired").hasSize(2)
                .last().asString().startsWith("lost 7 "));
    }

    /** elect's SIGTERM: it resigns, and the client closes right after, its timer thread busy. */
    @Test
    void aResignationRightBeforeTheClientClosesIsStillTold() throws Exception {
        LeaderElection election = campaigning(Duration.ofSeconds(30));
        win(election, "2026-12-07T10:00:30.000Z");
        await().atMost(Duration.ofSeconds(5)).until(() -> told.equals(List.of("gained 7")));
        CountDownLatch busy = new CountDownLatch(1);
        client.scheduler().execute(() -> {
            busy.countDown();
            awaitQuietly(new CountDownLatch(1), 200);
        });
        assertThat(busy.await(5, TimeUnit.SECONDS)).isTrue();

        election.resign();
        client.close();

        await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> assertThat(told)
                .as("resigned, then closed: the listener hears it").containsExactly("gained 7", "lost 7 RESIGNED"));
    }

    /** Candidate {@code host-a} of group {@code g}, campaigning; its listener's calls go to {@link #told}. */
    private LeaderElection campaigning(Duration ttl) {
        LeaderElection election = LeaderElection.of(client, "g", "host-a", ttl, Optional.empty(),
                new LeaderElection.Listener() {
                    @Override
                    public void gained(LeaderElection.Leadership leadership) {
                        telling.set(true);
                        awaitQuietly(letGainedEnd);
                        told.add("gained " + leadership.term());
                        telling.set(false);
                    }

                    @Override
                    public void lost(LeaderElection.Leadership leadership, LeaseLost.Reason why) {
                        told.add((telling.get() ? "beside gained: " : "") + "lost " + leadership.term() + " " + why);
                    }
                });
        election.campaign();
        return election;
    }

    /** The worker grants its first acquire term 7, until {@code expiresAt}. */
    private void win(LeaderElection election, String expiresAt) {
        String acquire = broker.sent(0);
        broker.reply(acquire, MockBroker.acquired(acquire, election.group(), election.candidate(), 7, expiresAt,
                ",\"value\":\"" + election.candidate() + "\"", ""));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        awaitQuietly(latch, 5_000);
    }

    private static void awaitQuietly(CountDownLatch latch, long millis) {
        try {
            latch.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
