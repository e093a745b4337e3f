package dev.lockstep.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExpectedEventsTest {

    private static Digest digest(String text) {
        return Digest.of(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void eventsAreFoundByIdAndComparedByDigestBeyondTheFirstArrays() {
        ExpectedEvents events = new ExpectedEvents();
        for (int i = 0; i < 1_000; i++) {
            events.add(10 + 2L * i, i % 3, 100 + i, digest("event " + i), i % 2 == 0);
        }
        assertThat(events.size()).isEqualTo(1_000);
        int at = events.find(10 + 2L * 777, 777 % 3);
        assertThat(at).isEqualTo(777);
        assertThat(events.offset(at)).isEqualTo(877);
        assertThat(events.matches(at, digest("event 777"))).isTrue();
        assertThat(events.matches(at, digest("event 778"))).isFalse();
        assertThat(events.find(11, 0)).as("an odd sequence no record made").isEqualTo(-1);
        assertThat(events.find(10, 1)).isEqualTo(-1);
    }

    @Test
    void theMissingAreTheRequiredNotSeen() {
        ExpectedEvents events = new ExpectedEvents();
        events.add(1, 0, 0, digest("a"), true);
        events.add(1, 1, 0, digest("b"), false);
        events.add(2, 0, 1, digest("c"), true);
        events.add(3, 0, 2, digest("d"), true);
        events.seen(events.find(2, 0));
        assertThat(events.missing().toArray()).containsExactly(0, 3);
    }

    @Test
    void eventsMustComeInTheOrderOfTheirIds() {
        ExpectedEvents events = new ExpectedEvents();
        events.add(5, 1, 0, digest("a"), true);
        assertThatThrownBy(() -> events.add(5, 1, 0, digest("b"), true)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> events.add(4, 7, 0, digest("b"), true)).isInstanceOf(IllegalStateException.class);
    }
}
