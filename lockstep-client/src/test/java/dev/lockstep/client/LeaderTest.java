package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.LeaseEvent;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

/** An observer's view of a group's leader, from a status and then the group's events. */
class LeaderTest {

    private static final Instant T0 = Instant.parse("2026-12-06T10:00:00Z");

    private static LeaseEvent event(LeaseEvent.Kind kind, String resource, String owner, long token, Optional<String> value) {
        return new LeaseEvent("t-0/" + token + ".0", kind, resource, owner, token, T0, Optional.empty(), "t-0@" + token,
                Optional.empty(), Optional.empty(), Optional.empty(), 0, Share.EXCLUSIVE, value);
    }

    @Test
    void aStatusTellsTheLeaderOrAVacancy() {
        Lease lease = new Lease("g", "a", 7, T0, T0.plusSeconds(10), 0, Share.EXCLUSIVE, Optional.of("host:1"));
        assertThat(Leader.of("g", new Verdict.Locked(List.of(lease), 0, OptionalInt.empty())))
                .isEqualTo(new Leader("g", Optional.of("a"), 7, Optional.of("host:1")));
        assertThat(Leader.of("g", new Verdict.NotFound()).isVacant()).isTrue();
    }

    @Test
    void eventsMoveTheViewForwardOnlyAndIgnoreOtherResources() {
        Leader view = Leader.vacant("g");
        view = view.after(event(LeaseEvent.Kind.GRANTED, "g", "a", 3, Optional.of("x")));
        assertThat(view).isEqualTo(new Leader("g", Optional.of("a"), 3, Optional.of("x")));
        assertThat(view.after(event(LeaseEvent.Kind.GRANTED, "other", "b", 9, Optional.empty()))).isEqualTo(view);
        assertThat(view.after(event(LeaseEvent.Kind.EXTENDED, "g", "a", 3, Optional.of("y"))).value()).contains("y");
        assertThat(view.after(event(LeaseEvent.Kind.RELEASED, "g", "a", 3, Optional.empty())))
                .as("the end alone says nothing yet").isEqualTo(view);

        Leader vacant = view.after(event(LeaseEvent.Kind.VACANT, "g", "a", 3, Optional.empty()));
        assertThat(vacant.isVacant()).isTrue();
        assertThat(vacant.term()).isEqualTo(3);
        assertThat(vacant.after(event(LeaseEvent.Kind.GRANTED, "g", "a", 3, Optional.of("x"))))
                .as("a grant of a term already over, read again").isEqualTo(vacant);
        Leader next = vacant.after(event(LeaseEvent.Kind.TAKEN_OVER, "g", "b", 5, Optional.of("z")));
        assertThat(next).isEqualTo(new Leader("g", Optional.of("b"), 5, Optional.of("z")));
        assertThat(next.after(event(LeaseEvent.Kind.VACANT, "g", "a", 3, Optional.empty())))
                .as("the vacancy of an earlier term").isEqualTo(next);
    }

    @Test
    void aSharedHolderIsNoLeader() {
        LeaseEvent shared = new LeaseEvent("t-0/4.0", LeaseEvent.Kind.GRANTED, "g", "r", 4, T0, Optional.empty(),
                "t-0@4", Optional.empty(), Optional.empty(), Optional.empty(), 0, Share.shared(2), Optional.empty());
        assertThat(Leader.vacant("g").after(shared).isVacant()).isTrue();
    }
}
