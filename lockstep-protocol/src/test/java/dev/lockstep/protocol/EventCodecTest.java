package dev.lockstep.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EventCodecTest {

    private static final Instant AT = Instant.parse("2026-12-03T10:00:00.125Z");

    @Test
    void anEventIsWrittenInAFixedOrderAndReadBack() {
        LeaseEvent granted = new LeaseEvent("lock.commands-3/18.0", LeaseEvent.Kind.TAKEN_OVER, "job", "o2", 18, AT,
                Optional.of(AT.plusSeconds(30)), "lock.commands-3@17", Optional.of("r-1"));
        String json = new String(EventCodec.encode(granted), StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("{\"event_id\":\"lock.commands-3/18.0\",\"event\":\"taken_over\",\"resource\":\"job\","
                + "\"owner\":\"o2\",\"fencing_token\":18,\"at\":\"2026-12-03T10:00:00.125Z\","
                + "\"expires_at\":\"2026-12-03T10:00:30.125Z\",\"source\":\"lock.commands-3@17\",\"request_id\":\"r-1\"}");
        assertThat(EventCodec.decode(EventCodec.encode(granted))).isEqualTo(granted);
    }

    @Test
    void fieldsThatDoNotApplyAreLeftOut() {
        LeaseEvent expired = new LeaseEvent("t-0/9.0", LeaseEvent.Kind.EXPIRED, "job", "o1", 3, AT, Optional.empty(),
                "t-0@8", Optional.empty());
        String json = new String(EventCodec.encode(expired), StandardCharsets.UTF_8);
        assertThat(json).doesNotContain("expires_at").doesNotContain("request_id");
        assertThat(EventCodec.decode(EventCodec.encode(expired))).isEqualTo(expired);
    }

    @Test
    void aWaitersEventHasNoTokenAndAGrantAfterWaitingSaysHowLong() {
        LeaseEvent queued = new LeaseEvent("t-0/9.0", LeaseEvent.Kind.QUEUED, "job", "o2", 0, AT, Optional.empty(),
                "t-0@8", Optional.of("w-1"));
        String json = new String(EventCodec.encode(queued), StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("{\"event_id\":\"t-0/9.0\",\"event\":\"queued\",\"resource\":\"job\","
                + "\"owner\":\"o2\",\"at\":\"2026-12-03T10:00:00.125Z\",\"source\":\"t-0@8\",\"request_id\":\"w-1\"}");
        assertThat(EventCodec.decode(EventCodec.encode(queued))).isEqualTo(queued);

        LeaseEvent granted = new LeaseEvent("t-0/12.1", LeaseEvent.Kind.GRANTED, "job", "o2", 12, AT,
                Optional.of(AT.plusSeconds(30)), "t-0@11", Optional.of("w-1"), Optional.empty(),
                Optional.of(Duration.ofMillis(4_250)));
        assertThat(new String(EventCodec.encode(granted), StandardCharsets.UTF_8)).endsWith(",\"waited_ms\":4250}");
        assertThat(EventCodec.decode(EventCodec.encode(granted))).isEqualTo(granted);
    }

    @Test
    void somethingElseIsRefusedSayingWhy() {
        assertThatThrownBy(() -> EventCodec.decode("nope".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not JSON");
        assertThatThrownBy(() -> EventCodec.decode("{\"event\":\"stolen\"}".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("unknown event 'stolen'");
        assertThatThrownBy(() -> EventCodec.decode(("{\"event_id\":\"x\",\"event\":\"granted\",\"resource\":\"r\","
                + "\"owner\":\"o\",\"fencing_token\":\"1\",\"at\":\"2026-12-03T10:00:00Z\",\"source\":\"s\"}")
                .getBytes(StandardCharsets.UTF_8))).hasMessageContaining("fencing_token");
    }
}
