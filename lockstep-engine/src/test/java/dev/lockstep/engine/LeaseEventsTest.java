package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.LeaseEvent.Kind;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The lease events the partition state machine makes, record by record, with no I/O. */
class LeaseEventsTest {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final Duration RETENTION = Duration.ofMinutes(10);
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), RETENTION,
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private final PartitionMachine machine = new PartitionMachine(SETTINGS);
    private final PartitionState state = PartitionState.empty(PartitionPosition.START);
    private final PartitionDriver partition = PartitionDriver.worker(machine, state, "lock.commands", 0);

    private static String command(String id, String type, String resource, String owner, String extra) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"" + type + "\",\"resource\":\"" + resource
                + "\",\"owner\":\"" + owner + "\"" + extra + "}";
    }

    private static String acquire(String id, String resource, String owner, int ttl) {
        return command(id, "acquire", resource, owner, ",\"ttl_seconds\":" + ttl);
    }

    private static String status(String id, String resource) {
        return "{\"request_id\":\"" + id + "\",\"type\":\"status\",\"resource\":\"" + resource + "\"}";
    }

    /** Applies the next record at {@code at}; returns its events, decoded. */
    private List<LeaseEvent> at(Instant at, String resource, String json) {
        return events(partition.append(resource, json, at));
    }

    private static List<LeaseEvent> events(Step step) {
        return step.events().stream().map(e -> EventCodec.decode(e.value())).toList();
    }

    private static List<Kind> kinds(List<LeaseEvent> events) {
        return events.stream().map(LeaseEvent::kind).toList();
    }

    @Test
    void aGrantSaysWhoGotWhichTokenUntilWhenAndFromWhichRecord() {
        List<LeaseEvent> events = at(T0, "job", acquire("r1", "job", "o1", 30));
        assertThat(events).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(Kind.GRANTED);
            assertThat(e.resource()).isEqualTo("job");
            assertThat(e.owner()).isEqualTo("o1");
            assertThat(e.fencingToken()).isEqualTo(1);
            assertThat(e.at()).isEqualTo(T0);
            assertThat(e.expiresAt()).contains(T0.plusSeconds(30));
            assertThat(e.source()).isEqualTo("lock.commands-0@0");
            assertThat(e.requestId()).contains("r1");
            assertThat(e.eventId()).isEqualTo("lock.commands-0/1.0");
        });
    }

    @Test
    void theSameOwnerAcquiringAgainOrRenewingExtendsTheSameToken() {
        at(T0, "job", acquire("r1", "job", "o1", 30));
        List<LeaseEvent> again = at(T0.plusSeconds(5), "job", acquire("r2", "job", "o1", 30));
        List<LeaseEvent> renewed = at(T0.plusSeconds(10), "job", command("r3", "renew", "job", "o1", ",\"ttl_seconds\":60"));
        assertThat(kinds(again)).containsExactly(Kind.EXTENDED);
        assertThat(again.get(0).expiresAt()).contains(T0.plusSeconds(35));
        assertThat(kinds(renewed)).containsExactly(Kind.EXTENDED);
        assertThat(renewed.get(0).expiresAt()).contains(T0.plusSeconds(70));
        assertThat(List.of(again.get(0), renewed.get(0))).extracting(LeaseEvent::fencingToken).containsOnly(1L);
    }

    @Test
    void aReleaseEndsTheLeaseAndTheNextOwnerIsGrantedNotTakingOver() {
        at(T0, "job", acquire("r1", "job", "o1", 30));
        List<LeaseEvent> released = at(T0.plusSeconds(5), "job", command("r2", "release", "job", "o1", ""));
        assertThat(released).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(Kind.RELEASED);
            assertThat(e.at()).isEqualTo(T0.plusSeconds(5));
            assertThat(e.expiresAt()).isEmpty();
            assertThat(e.fencingToken()).isEqualTo(1);
        });
        assertThat(state.lease("job")).as("a released lease is forgotten").isEmpty();
        assertThat(kinds(at(T0.plusSeconds(6), "job", acquire("r3", "job", "o2", 30)))).containsExactly(Kind.GRANTED);
        List<LeaseEvent> later = at(T0.plusSeconds(50), "other", acquire("r4", "other", "o3", 30));
        assertThat(kinds(later)).containsExactly(Kind.EXPIRED, Kind.GRANTED);
        assertThat(later.get(0).owner()).as("o2's lease expires; the released one never does").isEqualTo("o2");
    }

    @Test
    void anExpiryIsShownByTheFirstLaterRecordOfThePartitionWhateverItsResource() {
        at(T0, "a", acquire("r1", "a", "o1", 20));
        at(T0.plusSeconds(1), "b", acquire("r2", "b", "o2", 10));
        assertThat(at(T0.plusSeconds(10).minusMillis(1), "c", status("r3", "c"))).isEmpty();
        List<LeaseEvent> shown = at(T0.plusSeconds(30), "c", status("r4", "c"));
        assertThat(kinds(shown)).containsExactly(Kind.EXPIRED, Kind.EXPIRED);
        assertThat(shown).extracting(LeaseEvent::resource).as("in the order they ended").containsExactly("b", "a");
        assertThat(shown).extracting(LeaseEvent::at).containsExactly(T0.plusSeconds(11), T0.plusSeconds(20));
        assertThat(shown).extracting(LeaseEvent::source).containsOnly("lock.commands-0@3");
        assertThat(shown).extracting(LeaseEvent::requestId).containsOnly(Optional.of("r4"));
        assertThat(shown).extracting(LeaseEvent::eventId)
                .containsExactly("lock.commands-0/4.0", "lock.commands-0/4.1");
        assertThat(at(T0.plusSeconds(40), "c", status("r5", "c"))).as("shown once").isEmpty();
    }

    @Test
    void aLeaseEndsAtItsExpiryInstantExactly() {
        at(T0, "a", acquire("r1", "a", "o1", 10));
        assertThat(kinds(at(T0.plusSeconds(10), "a", acquire("r2", "a", "o1", 10))))
                .as("expired at the instant, then granted anew to the same owner").containsExactly(Kind.EXPIRED, Kind.GRANTED);
        assertThat(state.lease("a").orElseThrow().fencingToken()).isEqualTo(2);
    }

    @Test
    void anotherOwnerAfterAnExpiryTakesOver() {
        at(T0, "job", acquire("r1", "job", "o1", 10));
        List<LeaseEvent> takeover = at(T0.plusSeconds(15), "job", acquire("r2", "job", "o2", 10));
        assertThat(kinds(takeover)).containsExactly(Kind.EXPIRED, Kind.TAKEN_OVER);
        assertThat(takeover).extracting(LeaseEvent::owner).containsExactly("o1", "o2");
        assertThat(takeover.get(1).fencingToken()).isEqualTo(2);
    }

    @Test
    void aTakeoverIsToldJustInsideTheRequestRetentionAfterTheEnd() {
        at(T0, "job", acquire("r1", "job", "o1", 10));
        Instant justInside = T0.plusSeconds(10).plus(RETENTION).minusMillis(1);
        assertThat(kinds(at(justInside, "x", status("r2", "x")))).containsExactly(Kind.EXPIRED);
        assertThat(kinds(at(justInside, "job", acquire("r3", "job", "o9", 10)))).containsExactly(Kind.TAKEN_OVER);
    }

    @Test
    void aGrantAtTheRequestRetentionsEndIsAPlainGrant() {
        at(T0, "job", acquire("r1", "job", "o1", 10));
        assertThat(kinds(at(T0.plusSeconds(10).plus(RETENTION), "job", acquire("r2", "job", "o9", 10))))
                .as("the ended lease is past the partition's memory").containsExactly(Kind.EXPIRED, Kind.GRANTED);
    }

    @Test
    void recordsThatDecideNothingStillShowExpiriesButOnlyWithABrokerTime() {
        at(T0, "job", acquire("r1", "job", "o1", 10));
        Step unstamped = partition.append("job".getBytes(StandardCharsets.UTF_8),
                acquire("r2", "job", "o2", 10).getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.empty());
        assertThat(unstamped.events()).as("no log-append time, no time passed").isEmpty();
        List<LeaseEvent> byInvalid = at(T0.plusSeconds(20), "job", command("r3", "acquire", "job", "o2", ",\"ttl_seconds\":0"));
        assertThat(kinds(byInvalid)).containsExactly(Kind.EXPIRED);
        assertThat(byInvalid.get(0).requestId()).contains("r3");
        at(T0.plusSeconds(21), "job", acquire("r4", "job", "o3", 10));
        List<LeaseEvent> byGarbage = at(T0.plusSeconds(40), "job", "not json");
        assertThat(kinds(byGarbage)).containsExactly(Kind.EXPIRED);
        assertThat(byGarbage.get(0).requestId()).as("a dead-lettered record has no request ID").isEmpty();
    }

    @Test
    void aRetryAnsweredFromItsEntryMakesNoEventsAndARefusalNone() {
        at(T0, "job", acquire("r1", "job", "o1", 30));
        assertThat(at(T0.plusSeconds(1), "job", acquire("r1", "job", "o1", 30))).as("a retry").isEmpty();
        assertThat(at(T0.plusSeconds(2), "job", acquire("r2", "job", "o2", 30))).as("not acquired").isEmpty();
        assertThat(at(T0.plusSeconds(3), "job", command("r3", "release", "job", "o2", ""))).as("forbidden").isEmpty();
    }

    @Test
    void aRecordFetchedAgainPublishesTheEventsItMadeByteForByte() {
        at(T0, "job", acquire("r1", "job", "o1", 10));
        Step first = partition.append("job", acquire("r2", "job", "o2", 10), T0.plusSeconds(12));
        // As the worker loads it for a batch fetched again: the position past it, its events stored.
        PartitionState reloaded = new PartitionState(state.position(), List.of(), Map.of(
                "r2", state.request("r2").orElseThrow()), state.newEvents());
        Step again = PartitionDriver.log(machine, reloaded).apply(partition.log().get(1));
        assertThat(again.events()).extracting(Outbound.Event::entry).containsExactlyElementsOf(
                first.events().stream().map(Outbound.Event::entry).toList());
        assertThat(reloaded.newEvents()).as("nothing new to store").isEmpty();
    }

    @Test
    void eventIdsAreUniqueAcrossRecordsAndTopicIncarnations() {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            at(T0.plusSeconds(i * 7L), "r" + i % 3, acquire("q" + i, "r" + i % 3, "o" + i % 2, 5))
                    .forEach(e -> assertThat(ids.add(e.eventId())).as(e.eventId()).isTrue());
        }
        PartitionDriver next = PartitionDriver.worker(machine, PartitionState.empty(state.position().nextIncarnation()),
                "lock.commands", 0);
        Step first = next.append("r0", acquire("new", "r0", "o", 5), T0.plusSeconds(999));
        assertThat(events(first)).extracting(LeaseEvent::eventId).allSatisfy(id -> assertThat(ids).doesNotContain(id));
    }
}
