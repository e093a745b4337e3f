package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.ResourcePartition;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class LayoutTest {

    @Test
    void everyPartitionAwaitsExactlyThePartitionsThatHandItResourcesAndTheyAllSendToIt() {
        for (int from = 1; from <= 12; from++) {
            for (int to = from + 1; to <= 24; to++) {
                for (int i = 0; i < 2000; i++) {
                    String resource = "r-" + i;
                    int before = ResourcePartition.of(resource, from);
                    int after = ResourcePartition.of(resource, to);
                    if (before != after) {
                        assertThat(Layout.sources(from, to, after)).as("%d -> %d", from, to).contains(before);
                        assertThat(Layout.destinations(from, to, before)).as("%d -> %d", from, to).contains(after);
                    }
                }
                for (int q = 0; q < to; q++) {
                    for (int p : Layout.sources(from, to, q)) {
                        assertThat(Layout.destinations(from, to, p)).contains(q);
                    }
                }
            }
        }
    }

    @Test
    void aResourceIsDecidedByItsOldPartitionUntilTheSealAndByItsNewOneOnceTaken() {
        String resource = GrowingTopic.resource("r", 12, 3, 16, 7);
        Layout old = Layout.of(12);
        assertThat(old.sendTo(resource, 3, 0)).isEmpty();
        Layout sealed = old.sealed(3, 12, 16, 10, 0);
        assertThat(sealed.sendTo(resource, 3, 9)).as("before the seal").isEmpty();
        assertThat(sealed.sendTo(resource, 3, 10)).isEqualTo(OptionalInt.of(7));
        Layout arriving = Layout.of(12).sealed(7, 12, 16, 4, 0);
        assertThat(arriving.sendTo(resource, 7, 5)).as("not yet taken").isEqualTo(OptionalInt.of(3));
        Layout taken = arriving.taken(3, 20, 100);
        assertThat(taken.sendTo(resource, 7, 21)).isEmpty();
        assertThat(taken.sendTo(resource, 7, 19)).as("fetched again from before the taken").isEqualTo(OptionalInt.of(3));
        assertThat(taken.growth().map(Layout.Growth::done)).as("partition 7 of 16 awaits 3 of 12 and others")
                .isEqualTo(Optional.of(Layout.sources(12, 16, 7).size() == 1));
    }

    @Test
    void itsTextReadsBackAsItWas() {
        Layout grown = Layout.of(12).sealed(7, 12, 16, 4, 9).taken(3, 20, 100);
        assertThat(Layout.parse(grown.text())).isEqualTo(grown);
        assertThat(Layout.parse(Layout.of(5).text())).isEqualTo(Layout.of(5));
        PartitionPosition position = PartitionPosition.fresh(30, java.time.Instant.EPOCH, 100).withLayout(grown);
        assertThat(position.tokenAt(12)).as("a grant before the taken's rise keeps its token").isEqualTo(9 + 13);
        assertThat(position.tokenAt(25)).isEqualTo(100 + 26);
    }
}
