package dev.lockstep.replay;

import dev.lockstep.engine.InboundHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The replay of one partition under its recorded epochs, with no I/O. */
class PartitionReplayTest {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(1),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private static final EngineSettings SHORT_TTL = new EngineSettings(new Limits(Duration.ofSeconds(10), 16384),
            Duration.ofHours(1), new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);

    private static RecordedEpoch epoch(long start, long base, EngineSettings settings, EpochOrigin origin) {
        return new RecordedEpoch(start, "topic-id", base, settings, origin, origin.name().toLowerCase());
    }

    /** A replay with no checkpoints recorded. */
    private static PartitionReplay start(List<RecordedEpoch> epochs, long logStart) {
        return PartitionReplay.start(epochs, logStart, List.of(), recorded -> Optional.empty());
    }

    private static Inbound acquire(long offset, String id, int ttl) {
        String json = "{\"request_id\":\"" + id + "\",\"type\":\"acquire\",\"resource\":\"r" + offset
                + "\",\"owner\":\"o\",\"ttl_seconds\":" + ttl + "}";
        return new Inbound("lock.commands", 0, offset, ("r" + offset).getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(T0.plusSeconds(offset)));
    }

    private static List<String> replies(PartitionReplay replay, Inbound... records) {
        List<String> replies = new ArrayList<>();
        for (Inbound record : records) {
            replay.apply(record, (r, step) -> replies.add(new String(((Outbound.ReplyRecord) step.answer().orElseThrow()).value(),
                    StandardCharsets.UTF_8)));
        }
        return replies;
    }

    @Test
    void aFirstStartIsReplayedWithItsRecordedTokenBase() {
        PartitionReplay replay = start(List.of(epoch(0, 500, SETTINGS, EpochOrigin.FIRST_START)), 0);
        List<String> replies = replies(replay, acquire(0, "a", 30), acquire(1, "b", 30));
        assertThat(replies.get(1)).contains("\"fencing_token\":502");
        assertThat(replay.unverifiable()).isEmpty();
        assertThat(replay.replayed()).isEqualTo(2);
        assertThat(replay.state().orElseThrow().position().nextOffset()).isEqualTo(2);
    }

    @Test
    void aRecordedSettingsChangeDecidesTheRecordsFromItsOffset() {
        PartitionReplay replay = start(List.of(epoch(0, 0, SETTINGS, EpochOrigin.FIRST_START),
                epoch(1, 0, SHORT_TTL, EpochOrigin.CONTINUED)), 0);
        List<String> replies = replies(replay, acquire(0, "a", 30), acquire(1, "b", 30));
        assertThat(replies.get(0)).contains("\"outcome\":\"acquired\"");
        assertThat(replies.get(1)).as("30 s is above the new maximum").contains("\"outcome\":\"invalid\"");
    }

    @Test
    void whatTheLogDoesNotHoldCannotBeVerified() {
        assertThat(start(List.of(), 0).unverifiable()).hasValueSatisfying(
                reason -> assertThat(reason).contains("no worker has started it"));
        assertThat(start(List.of(epoch(0, 0, SETTINGS, EpochOrigin.FIRST_START)), 7).unverifiable())
                .hasValueSatisfying(reason -> assertThat(reason).contains("records 0..6 are gone"));
        assertThat(start(List.of(epoch(40, 0, SETTINGS, EpochOrigin.CONTINUED)), 0).unverifiable())
                .hasValueSatisfying(reason -> assertThat(reason).contains("did not start from an empty state"));

        PartitionReplay recreated = start(List.of(epoch(0, 0, SETTINGS, EpochOrigin.FIRST_START),
                epoch(2, 90, SETTINGS, EpochOrigin.TOPIC_RECREATED)), 0);
        List<String> replies = replies(recreated, acquire(0, "a", 30), acquire(1, "b", 30), acquire(2, "c", 30));
        assertThat(replies).hasSize(2);
        assertThat(recreated.unverifiable()).hasValueSatisfying(reason -> assertThat(reason)
                .contains("from offset 2").contains("topic_recreated"));
    }

    @Test
    void aWindowComparesOnlyTheRecordsInsideIt() {
        TimeWindow window = new TimeWindow(Optional.of(T0.plusSeconds(1)), Optional.of(T0.plusSeconds(2)));
        assertThat(window.contains(T0)).isFalse();
        assertThat(window.contains(T0.plusSeconds(1))).isTrue();
        assertThat(window.contains(T0.plusSeconds(2))).isFalse();
        Expectations expected = new Expectations(window, "lock.commands", 3);
        PartitionReplay replay = start(List.of(epoch(0, 0, SETTINGS, EpochOrigin.FIRST_START)), 0);
        for (long offset = 0; offset < 3; offset++) {
            replay.apply(acquire(offset, "q" + offset, 30), (record, step) -> expected.add(record, step, true));
        }
        assertThat(expected.reply("lock.replies", "q0")).hasValueSatisfying(r -> assertThat(r.required()).isFalse());
        assertThat(expected.reply("lock.replies", "q1")).hasValueSatisfying(r -> assertThat(r.required()).isTrue());
        assertThat(expected.reply("lock.replies", "q2")).hasValueSatisfying(r -> assertThat(r.required()).isFalse());
    }
}
