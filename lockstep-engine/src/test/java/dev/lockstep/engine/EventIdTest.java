package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class EventIdTest {

    @Test
    void anIdReadsBackAsWritten() {
        EventId id = new EventId("lock.commands-eu-west", 11, 4_200_000_001L, 3);
        assertThat(id.toString()).isEqualTo("lock.commands-eu-west-11/4200000001.3");
        assertThat(EventId.parse(id.toString())).contains(id);
    }

    @Test
    void onlyTheCanonicalSpellingIsAnId() {
        assertThat(EventId.parse("lock.commands-0/7.0")).isPresent();
        for (String other : new String[] {"lock.commands-0/07.0", "lock.commands-+0/7.0", "lock.commands-0/7.-1",
                "lock.commands-0/7", "lock.commands/7.0", "-0/7.0", "lock.commands-0/7.0x", "", "lock.commands-0/.0",
                "lock.commands-0/7.01"}) {
            assertThat(EventId.parse(other)).as(other).isEqualTo(Optional.empty());
        }
    }

    @Test
    void idsOfOnePartitionOrderAsTheirRecordsMadeThem() {
        assertThat(new EventId("t", 0, 5, 9)).isLessThan(new EventId("t", 0, 6, 0));
        assertThat(new EventId("t", 0, 6, 0)).isLessThan(new EventId("t", 0, 6, 1));
    }
}
