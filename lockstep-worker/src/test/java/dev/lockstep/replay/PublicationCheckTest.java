package dev.lockstep.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.Step;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/**
 * The comparison with what was published, which keeps digests only, and the second run that
 * recovers the texts its divergences name: pure, over a generated partition of contended commands.
 */
class PublicationCheckTest {

    private static final String TOPIC = "bench.commands";
    private static final String REPLIES = "lock.replies";
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), REPLIES, 1);
    private static final List<Inbound> LOG = ReplayThroughput.generate(3_000, 40, new Random(11));

    /** What the worker published for the log, as it would be read back. */
    private record Output(List<Published> replies, List<Published> events, List<String> eventRequestIds) {
    }

    private static void replay(BiConsumer<Inbound, Step> sink) {
        PartitionReplay replay = PartitionReplay.start(List.of(new RecordedEpoch(0, "id", 0, SETTINGS,
                EpochOrigin.FIRST_START, "first start")), 0, List.of(), c -> Optional.empty());
        LOG.forEach(record -> replay.apply(record, sink));
    }

    private static Expectations expectations() {
        Expectations expected = new Expectations(TimeWindow.ALL, TOPIC, LOG.size());
        replay((record, step) -> expected.add(record, step, true));
        return expected;
    }

    private static Output published() {
        List<Published> replies = new ArrayList<>();
        List<Published> events = new ArrayList<>();
        List<String> eventRequestIds = new ArrayList<>();
        replay((record, step) -> {
            Outbound.ReplyRecord reply = (Outbound.ReplyRecord) step.answer().orElseThrow();
            for (Outbound.Event event : step.events()) {
                events.add(new Published(record.partition(), events.size(), event.entry().resource(),
                        event.value()));
                eventRequestIds.add(reply.requestId());
            }
            replies.add(new Published(0, replies.size(), reply.requestId(), reply.value()));
        });
        return new Output(replies, events, eventRequestIds);
    }

    private static PublicationCheck check(Expectations expected, List<Published> replies,
            List<Published> events) {
        PublicationCheck check = new PublicationCheck(expected, true, Map.of(0, 0L));
        replies.forEach(reply -> check.reply(REPLIES, reply));
        check.endOfReplies(REPLIES);
        events.forEach(check::event);
        check.endOfEvents();
        return check;
    }

    private static List<Divergence> resolve(List<ExpectedTexts.Finding> findings) {
        ExpectedTexts texts = new ExpectedTexts();
        findings.forEach(f -> f.wanted().ifPresent(texts::want));
        replay(texts::add);
        return texts.resolve(findings);
    }

    private static String text(Published published) {
        return new String(published.value(), StandardCharsets.UTF_8);
    }

    @Test
    void whatTheWorkerPublishedIsReproducedAndAPublicationRedoneIsNoDivergence() {
        Output published = published();
        assertThat(published.events()).hasSizeGreaterThan(500);
        List<Published> replies = new ArrayList<>(published.replies());
        List<Published> events = new ArrayList<>(published.events());
        replies.addAll(published.replies().subList(100, 200));
        events.addAll(published.events().subList(50, 90));

        PublicationCheck check = check(expectations(), replies, events);

        assertThat(check.findings()).isEmpty();
        assertThat(check.repliesCompared()).isEqualTo(replies.size());
        assertThat(check.eventsCompared()).isEqualTo(events.size());
    }

    @Test
    void eachPlantedDivergenceIsNamedWithWhatTheLogGivesAsRecoveredByASecondRun() {
        Output published = published();
        List<Published> replies = new ArrayList<>(published.replies());
        List<Published> events = new ArrayList<>(published.events());
        Published altered = replies.get(10);
        replies.set(10, new Published(0, altered.offset(), altered.key(),
                text(altered).replace("\"outcome\":\"", "\"outcome\":\"forged-").getBytes(StandardCharsets.UTF_8)));
        Published dropped = replies.remove(20);
        replies.add(new Published(0, 9_999, "no-such-request", "{}".getBytes(StandardCharsets.UTF_8)));
        Published changedEvent = events.get(5);
        events.set(5, new Published(0, changedEvent.offset(), changedEvent.key(),
                text(changedEvent).replace("\"owner\":\"", "\"owner\":\"mallory-").getBytes(StandardCharsets.UTF_8)));
        Published droppedEvent = events.remove(7);
        String droppedEventRequest = published.eventRequestIds().get(7);
        Published moved = events.get(8);
        events.set(8, new Published(0, moved.offset(), "another-key", moved.value()));

        List<ExpectedTexts.Finding> findings = check(expectations(), replies, events).findings();
        List<Divergence> divergences = resolve(findings);

        assertThat(divergences).extracting(Divergence::kind).containsExactlyInAnyOrder(Divergence.Kind.REPLY_DIFFERS,
                Divergence.Kind.REPLY_FORGED, Divergence.Kind.REPLY_MISSING, Divergence.Kind.EVENT_DIFFERS,
                Divergence.Kind.EVENT_MISPLACED, Divergence.Kind.EVENT_MISSING);
        assertThat(of(divergences, Divergence.Kind.REPLY_DIFFERS)).satisfies(d -> {
            assertThat(d.requestId()).contains(altered.key());
            assertThat(d.expected()).isEqualTo(text(altered));
            assertThat(d.found()).contains("forged-");
            assertThat(d.source()).isEqualTo(TOPIC + "-0@10");
        });
        assertThat(of(divergences, Divergence.Kind.REPLY_MISSING)).satisfies(d -> {
            assertThat(d.requestId()).contains(dropped.key());
            assertThat(d.expected()).isEqualTo(text(dropped));
            assertThat(d.source()).isEqualTo(TOPIC + "-0@20");
        });
        assertThat(of(divergences, Divergence.Kind.REPLY_FORGED).requestId()).contains("no-such-request");
        assertThat(of(divergences, Divergence.Kind.EVENT_DIFFERS)).satisfies(d -> {
            assertThat(d.expected()).isEqualTo(text(changedEvent));
            assertThat(d.requestId()).contains(published.eventRequestIds().get(5));
            assertThat(d.found()).contains("mallory-");
        });
        assertThat(of(divergences, Divergence.Kind.EVENT_MISSING)).satisfies(d -> {
            assertThat(d.expected()).isEqualTo(text(droppedEvent));
            assertThat(d.requestId()).contains(droppedEventRequest);
        });
        assertThat(of(divergences, Divergence.Kind.EVENT_MISPLACED).found()).contains("another-key");
    }

    @Test
    void anEventWhoseIdTheLogDoesNotMakeIsForged() {
        Output published = published();
        List<Published> events = new ArrayList<>(published.events());
        String original = text(events.get(0));
        String id = original.replaceAll(".*\"event_id\":\"([^\"]+)\".*", "$1");
        events.add(new Published(0, 77_777, "job-1", original.replace(id, id + "9")
                .getBytes(StandardCharsets.UTF_8)));
        events.add(new Published(0, 77_778, "job-1", "not json".getBytes(StandardCharsets.UTF_8)));

        List<Divergence> divergences = resolve(check(expectations(), published.replies(), events).findings());

        assertThat(divergences).extracting(Divergence::kind)
                .containsExactly(Divergence.Kind.EVENT_FORGED, Divergence.Kind.EVENT_FORGED);
        assertThat(divergences.get(0).expected()).contains(id + "9");
    }

    private static Divergence of(List<Divergence> divergences, Divergence.Kind kind) {
        return divergences.stream().filter(d -> d.kind() == kind).findFirst().orElseThrow();
    }
}
