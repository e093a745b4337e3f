package dev.lockstep.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Share;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.LeaseEvent.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Holds folded from lease events, with no I/O. */
class HoldsTest {

    private static final Instant T0 = Instant.parse("2026-12-03T02:00:00Z");
    private final List<LeaseEvent> events = new ArrayList<>();

    private void event(Kind kind, String owner, long token, long at, Long expires) {
        events.add(new LeaseEvent("t-0/" + events.size() + ".0", kind, "job", owner, token, T0.plusSeconds(at),
                Optional.ofNullable(expires).map(T0::plusSeconds), "t-0@" + events.size(), Optional.of("r")));
    }

    /** A job run twice: a stalls past its TTL, b takes over, a's late release is refused (no event). */
    private Holds runTwice() {
        event(Kind.GRANTED, "a", 1, 0, 30L);
        event(Kind.EXTENDED, "a", 1, 10, 40L);
        event(Kind.EXPIRED, "a", 1, 40, null);
        event(Kind.TAKEN_OVER, "b", 3, 45, 75L);
        event(Kind.RELEASED, "b", 3, 50, null);
        event(Kind.GRANTED, "c", 5, 60, 90L);
        return Holds.of("job", events);
    }

    @Test
    void eachTokenIsOneHoldFromItsGrantToItsEnd() {
        List<Hold> holds = runTwice().all();
        assertThat(holds).extracting(Hold::owner).containsExactly("a", "b", "c");
        assertThat(holds.get(0)).isEqualTo(new Hold("a", 1, T0, T0.plusSeconds(40), Optional.of(T0.plusSeconds(40)),
                Hold.End.EXPIRED, false));
        assertThat(holds.get(1).takenOver()).as("b started while a's lease had lapsed").isTrue();
        assertThat(holds.get(2).takenOver()).as("c after a release").isFalse();
        assertThat(holds.get(1).end()).isEqualTo(Hold.End.RELEASED);
        assertThat(holds.get(1).endedAt()).contains(T0.plusSeconds(50));
        assertThat(holds.get(2).end()).isEqualTo(Hold.End.HELD);
        assertThat(holds.get(2).endedAt()).isEmpty();
    }

    /** A grant its caller had given up on, released right after by the acquire's cancellation. */
    @Test
    void aHoldReleasedByItsAcquiresCancellationEndsCancelled() {
        event(Kind.GRANTED, "a", 1, 0, 3600L);
        events.add(new LeaseEvent("t-0/2.0", Kind.RELEASED, "job", "a", 1, T0.plusSeconds(1), Optional.empty(),
                "t-0@2", Optional.of("c"), Optional.of("r")));
        Hold hold = Holds.of("job", events).all().get(0);
        assertThat(hold.end()).isEqualTo(Hold.End.CANCELLED);
        assertThat(hold.endedAt()).contains(T0.plusSeconds(1));
    }

    /** A hold granted to an acquire that waited in the queue says how long, in JSON and text; its queue's events are no hold. */
    @Test
    void aHoldGrantedAfterAWaitSaysHowLong() throws Exception {
        event(Kind.GRANTED, "a", 1, 0, 30L);
        event(Kind.QUEUED, "b", 0, 1, null);
        event(Kind.RELEASED, "a", 1, 5, null);
        events.add(new LeaseEvent("t-0/4.1", Kind.GRANTED, "job", "b", 4, T0.plusSeconds(5),
                Optional.of(T0.plusSeconds(35)), "t-0@4", Optional.of("w"), Optional.empty(),
                Optional.of(Duration.ofSeconds(4))));
        Holds holds = Holds.of("job", events);

        assertThat(holds.all()).extracting(Hold::owner).containsExactly("a", "b");
        assertThat(holds.all().get(1).waited()).contains(Duration.ofSeconds(4));
        JsonNode json = new ObjectMapper().readTree(AuditFormat.JSON.write(List.of(holds)));
        assertThat(json.path("holds").get(1).path("waited_ms").asLong()).isEqualTo(4_000);
        assertThat(json.path("holds").get(0).has("waited_ms")).isFalse();
        assertThat(AuditFormat.TEXT.write(List.of(holds))).contains("waited 4000 ms in the queue");
    }

    @Test
    void atAnInstantAtMostOneHoldCoversItGrantInclusiveEndExclusive() {
        Holds holds = runTwice();
        assertThat(holds.at(T0)).map(Hold::owner).contains("a");
        assertThat(holds.at(T0.plusSeconds(40).minusMillis(1))).map(Hold::owner).contains("a");
        assertThat(holds.at(T0.plusSeconds(40))).as("the expiry instant is no longer held").isEmpty();
        assertThat(holds.at(T0.plusSeconds(45))).map(Hold::owner).contains("b");
        assertThat(holds.at(T0.plusSeconds(50))).isEmpty();
        assertThat(holds.at(T0.plusSeconds(89))).map(Hold::owner).contains("c");
        assertThat(holds.at(T0.plusSeconds(90))).as("held, but past its expiry").isEmpty();
        assertThat(holds.between(T0.plusSeconds(39), T0.plusSeconds(46))).extracting(Hold::owner).containsExactly("a", "b");
    }

    @Test
    void duplicatesOfARedonePublicationCountOnce() {
        List<Hold> once = runTwice().all();
        List<LeaseEvent> twice = new ArrayList<>(events);
        twice.addAll(3, events.subList(0, 3));
        assertThat(Holds.of("job", twice).all()).isEqualTo(once);
    }

    @Test
    void jsonAndTextSayTheSame() throws Exception {
        Holds holds = runTwice();
        JsonNode json = new ObjectMapper().readTree(AuditFormat.JSON.write(List.of(holds)));
        assertThat(json.path("resource").asText()).isEqualTo("job");
        assertThat(json.path("holds")).hasSize(3);
        assertThat(json.path("holds").get(0).path("end").asText()).isEqualTo("expired");
        assertThat(json.path("holds").get(2).path("ended_at").isNull()).isTrue();
        assertThat(json.path("holds").get(1).path("fencing_token").asLong()).isEqualTo(3);
        assertThat(json.path("holds").get(1).path("taken_over").asBoolean()).isTrue();
        assertThat(AuditFormat.TEXT.write(List.of(holds))).contains("job: 3 holds").contains("held (expires then)")
                .contains("released; took over an expired lease");
    }

    @Test
    void theHtmlIsSelfContainedAndAnOwnerCannotCloseItsScript() {
        events.add(new LeaseEvent("t-0/9.0", Kind.GRANTED, "job", "</script><script>alert(1)</script>", 9, T0,
                Optional.of(T0.plusSeconds(5)), "t-0@9", Optional.empty()));
        String html = AuditFormat.HTML.write(List.of(Holds.of("job", events)));
        assertThat(html).doesNotContain("</script><script>alert").contains("\\u003c/script>");
        assertThat(html).as("nothing fetched from a network").doesNotContain("src=").doesNotContain("href=")
                .doesNotContain("@import").doesNotContain("url(");
    }

    private void shared(Kind kind, String owner, long token, int permit, long at, Long expires) {
        events.add(new LeaseEvent("t-0/" + events.size() + ".0", kind, "job", owner, token, T0.plusSeconds(at),
                Optional.ofNullable(expires).map(T0::plusSeconds), "t-0@" + events.size(), Optional.of("r"),
                Optional.empty(), Optional.empty(), permit, Share.shared(2)));
    }

    /** A semaphore's holders are held side by side, each followed by its permit, until a writer comes. */
    @Test
    void sharedHoldsRunSideBySideEachOnItsPermit() {
        shared(Kind.GRANTED, "a", 1, 0, 0, 30L);
        shared(Kind.GRANTED, "b", 2, 1, 5, 35L);
        shared(Kind.EXTENDED, "a", 1, 0, 10, 60L);
        shared(Kind.RELEASED, "b", 2, 1, 20, null);
        shared(Kind.GRANTED, "c", 4, 1, 20, 50L);
        shared(Kind.EXPIRED, "c", 4, 1, 50, null);
        shared(Kind.RELEASED, "a", 1, 0, 55, null);
        event(Kind.GRANTED, "w", 9, 70, 100L);
        Holds holds = Holds.of("job", events);

        assertThat(holds.all()).extracting(Hold::owner).containsExactly("a", "b", "c", "w");
        assertThat(holds.all()).extracting(Hold::end).containsExactly(Hold.End.RELEASED, Hold.End.RELEASED,
                Hold.End.EXPIRED, Hold.End.HELD);
        assertThat(holds.all().get(0).expiresAt()).as("a's extension").isEqualTo(T0.plusSeconds(60));
        assertThat(holds.allAt(T0.plusSeconds(25))).extracting(Hold::owner).containsExactly("a", "c");
        assertThat(holds.allAt(T0.plusSeconds(25))).extracting(Hold::permit).containsExactly(0, 1);
        assertThat(holds.allAt(T0.plusSeconds(80))).extracting(Hold::owner).containsExactly("w");
        assertThat(holds.all().get(3).exclusive()).isTrue();
    }

    /** A leader's holds say what each published; an extension may publish another; a vacancy ends nothing more. */
    @Test
    void aLeadersHoldsSayWhatTheyPublished() {
        events.add(new LeaseEvent("t-0/100.0", Kind.GRANTED, "job", "a", 1, T0, Optional.of(T0.plusSeconds(30)), "t-0@0",
                Optional.of("r1"), Optional.empty(), Optional.empty(), 0, Share.EXCLUSIVE, Optional.of("host-a:1")));
        events.add(new LeaseEvent("t-0/101.0", Kind.EXTENDED, "job", "a", 1, T0.plusSeconds(5),
                Optional.of(T0.plusSeconds(35)), "t-0@1", Optional.of("r2"), Optional.empty(), Optional.empty(), 0,
                Share.EXCLUSIVE, Optional.of("host-a:2")));
        event(Kind.RELEASED, "a", 1, 10, null);
        event(Kind.VACANT, "a", 1, 10, null);
        Holds holds = Holds.of("job", events);

        assertThat(holds.all()).singleElement().satisfies(hold -> {
            assertThat(hold.value()).contains("host-a:2");
            assertThat(hold.end()).isEqualTo(Hold.End.RELEASED);
        });
        assertThat(AuditFormat.TEXT.write(List.of(holds))).contains("published host-a:2");
    }
}
