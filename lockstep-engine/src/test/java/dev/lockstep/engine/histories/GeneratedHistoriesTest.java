package dev.lockstep.engine.histories;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.lockstep.engine.Outbound;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Generated histories of one partition, adversarial on purpose: a few owners contending for two or
 * three resources, one owner with several acquires in flight, waits longer than TTLs, shares of
 * differing limits and values, cancellations of whatever was sent, renews and releases with right
 * and wrong tokens, retries, records at one log time and ends on a record's very instant, hand-overs
 * delayed, interleaved and lost, and records lost before they were applied. Every record is checked
 * against the invariants ({@link Observed}), and every log is decided again every way the product
 * decides it ({@link Ways}). A failing case is shrunk to a smallest one that fails the same way.
 *
 * <p>CI runs a fixed budget; {@code -Dlockstep.histories.tries=N} (or {@code -Phistories}) runs
 * more, {@code -Dlockstep.histories.seed=S} from another seed (one case: {@code -Dlockstep.histories.tries=1}),
 * {@code -Dlockstep.histories.without=Cancel,LoseRecords} without those steps (docs/testing.md).
 */
class GeneratedHistoriesTest {

    private static final int TRIES = Integer.getInteger("lockstep.histories.tries", 1_000);
    private static final int LENGTH = Integer.getInteger("lockstep.histories.length", 40);
    private static final long SEED = Long.getLong("lockstep.histories.seed", 20261206L);
    private static final Set<String> WITHOUT = Arrays.stream(System.getProperty("lockstep.histories.without", "")
            .split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toCollection(TreeSet::new));
    private static final int SHRINK_BUDGET = 20_000;

    @Test
    void everyGeneratedHistoryKeepsTheRulesAndIsDecidedTheSameEveryWay() {
        Map<LeaseEvent.Kind, Integer> events = new EnumMap<>(LeaseEvent.Kind.class);
        int[] records = new int[1];
        int[] handOvers = new int[1];
        for (int i = 0; i < TRIES; i++) {
            Generated generated = Generated.of(SEED + i, LENGTH, WITHOUT);
            Optional<Violation> failed = Shrinker.failure(generated, run -> run.segments().forEach(segment ->
                    segment.applied().forEach(applied -> {
                        records[0]++;
                        for (Outbound out : applied.step().all()) {
                            if (out instanceof Outbound.Event event) {
                                events.merge(EventCodec.decode(event.value()).kind(), 1, Integer::sum);
                            } else if (out instanceof Outbound.HandOver) {
                                handOvers[0]++;
                            }
                        }
                    })));
            if (failed.isPresent()) {
                Shrinker.Shrunk shrunk = Shrinker.shrink(generated, failed.get(), SHRINK_BUDGET);
                fail(report(generated, shrunk));
            }
        }
        System.out.printf("%d generated histories (seeds %d..%d, up to %d steps%s): %d records, %d hand-overs asked "
                + "for, events %s%n", TRIES, SEED, SEED + TRIES - 1, LENGTH, WITHOUT.isEmpty() ? "" : ", without "
                + WITHOUT, records[0], handOvers[0], events);
        if (TRIES >= 100 && WITHOUT.isEmpty()) {
            assertThat(events.keySet()).as("the histories reach every kind of event")
                    .containsAll(Set.of(LeaseEvent.Kind.values()));
            assertThat(handOvers[0]).as("and runs of hand-overs").isPositive();
        }
    }

    private static String report(Generated generated, Shrinker.Shrunk shrunk) {
        return String.format("generated history of seed %d (time: %s) breaks \"%s\"%n%s%n%nshrunk (%d cases tried) from %d to %d "
                + "steps:%n%s%n%nits log, up to the failure:%n%s%nrun it alone: -Dlockstep.histories.seed=%d "
                + "-Dlockstep.histories.tries=1 -Dlockstep.histories.length=%d%s", generated.seed(),
                generated.settings().timekeeping(),
                shrunk.violation().invariant(), shrunk.violation().getMessage(), shrunk.runs(),
                generated.actions().size(), shrunk.generated().actions().size(), shrunk.generated(),
                HistoryRun.trace(shrunk.generated().actions(), shrunk.generated().settings()), generated.seed(), LENGTH,
                WITHOUT.isEmpty() ? "" : " -Dlockstep.histories.without=" + String.join(",", WITHOUT));
    }
}
