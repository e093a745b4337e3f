package dev.lockstep.replay;

import dev.lockstep.engine.InboundHeaders;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Lease;
import dev.lockstep.engine.Checkpoint;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.EpochOrigin;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.Step;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.Limits;
import dev.lockstep.store.RecordedCheckpoint;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Checkpoints in the pure replay: a replay started from the state a checkpoint holds yields, for
 * every later record, exactly what the replay from offset 0 yields (retries of requests applied
 * before the checkpoint included); a checkpoint that is not the state the log leaves is named.
 */
class CheckpointReplayTest {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    /** The shortest request retention: the log below spans several, so entries and leases are compacted. */
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofMinutes(5),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private static final List<RecordedEpoch> EPOCHS = List.of(
            new RecordedEpoch(0, "id", 0, SETTINGS, EpochOrigin.FIRST_START, "first start"));

    /**
     * Contended commands on a few resources, a second apart on average; every fifth one a retry of
     * an earlier one; one acquire in three waits in the queue, up to 30 s.
     */
    private static List<Inbound> log(int count) {
        Random random = new Random(11);
        List<Inbound> log = new ArrayList<>();
        List<String> sent = new ArrayList<>();
        String[] types = {"acquire", "acquire", "renew", "release", "status"};
        Instant time = T0;
        for (int i = 0; i < count; i++) {
            time = time.plusMillis(random.nextInt(2_000));
            String json;
            if (i > 10 && i % 5 == 0) {
                json = sent.get(sent.size() - 1 - random.nextInt(Math.min(sent.size(), 300)));
            } else {
                String type = types[random.nextInt(types.length)];
                json = "{\"request_id\":\"r" + i + "\",\"type\":\"" + type + "\",\"resource\":\"job-" + random.nextInt(6)
                        + "\"" + (type.equals("status") ? "" : ",\"owner\":\"o" + random.nextInt(3) + "\"")
                        + (type.equals("acquire") || type.equals("renew") ? ",\"ttl_seconds\":" + (1 + random.nextInt(60)) : "")
                        + (type.equals("acquire") && random.nextInt(3) == 0 ? ",\"wait_ms\":" + (1 + random.nextInt(30_000)) : "")
                        + "}";
                sent.add(json);
            }
            String resource = json.replaceAll(".*\"resource\":\"([^\"]+)\".*", "$1");
            log.add(new Inbound("lock.commands", 0, i, resource.getBytes(StandardCharsets.UTF_8),
                    json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(time)));
        }
        return log;
    }

    /** Every published value of every step, in order, from {@code from} on. */
    private static List<String> outputs(PartitionReplay replay, List<Inbound> log, long from) {
        List<String> out = new ArrayList<>();
        log.forEach(record -> replay.apply(record, (r, step) -> {
            if (r.offset() >= from) {
                out.addAll(describe(step));
            }
        }));
        return out;
    }

    private static List<String> describe(Step step) {
        List<String> out = new ArrayList<>();
        step.events().forEach(e -> out.add(e.entry().value()));
        step.deferred().forEach(reply -> out.add("to a waiter: " + new String(reply.value(), StandardCharsets.UTF_8)));
        step.answer().ifPresent(answer -> {
            if (answer instanceof Outbound.ReplyRecord reply) {
                out.add(new String(reply.value(), StandardCharsets.UTF_8));
            } else {
                out.add("dead letter: " + ((Outbound.DeadLetter) answer).reason());
            }
        });
        return out;
    }

    /** The checkpoints a worker would have recorded after the records below each of {@code offsets}. */
    private static Map<Long, Checkpoint> checkpointsAt(List<Inbound> log, long... offsets) {
        Map<Long, Checkpoint> taken = new HashMap<>();
        PartitionReplay replay = PartitionReplay.start(EPOCHS, 0, List.of(), c -> Optional.empty());
        log.forEach(record -> replay.apply(record, (r, step) -> {
            for (long offset : offsets) {
                if (r.offset() + 1 == offset) {
                    taken.put(offset, Checkpoint.of(replay.state().orElseThrow(), SETTINGS));
                }
            }
        }));
        return taken;
    }

    private static RecordedCheckpoint listed(long offset, Checkpoint checkpoint) {
        return new RecordedCheckpoint(offset, 0, "id", offset, checkpoint.position().clock());
    }

    @Test
    void aReplayFromACheckpointYieldsWhatTheWholeReplayYieldsAfterIt() {
        List<Inbound> log = log(3_000);
        Map<Long, Checkpoint> taken = checkpointsAt(log, 1_670);
        Checkpoint at1670 = taken.get(1_670L);
        assertThat(at1670.requests()).as("request entries within the retention").hasSizeGreaterThan(50);
        assertThat(at1670.requests()).as("nothing past the retention").allMatch(e -> e.rememberedAt(
                at1670.position().clock(), SETTINGS));
        assertThat(at1670.waiters()).as("acquires waiting at the checkpoint").isNotEmpty();

        List<String> whole = outputs(PartitionReplay.start(EPOCHS, 0, List.of(), c -> Optional.empty()), log, 1_670);
        PartitionReplay fromCheckpoint = PartitionReplay.start(EPOCHS, 1_200, List.of(listed(1_670, at1670)),
                c -> Optional.of(at1670));
        assertThat(fromCheckpoint.unverifiable()).isEmpty();
        assertThat(fromCheckpoint.readFrom()).isEqualTo(1_670);
        List<String> resumed = outputs(fromCheckpoint, log, 0);

        assertThat(resumed).isEqualTo(whole);
        assertThat(whole).anyMatch(value -> value.contains("\"fencing_token\":"));
        assertThat(whole).as("waiters queued before the checkpoint answered after it").anyMatch(value ->
                value.startsWith("to a waiter:") && at1670.waiters().stream().anyMatch(w -> value.contains(
                        "\"request_id\":\"" + w.requestId() + "\"")));
        assertThat(fromCheckpoint.replayed()).isEqualTo(1_330);
        assertThat(fromCheckpoint.startedFrom()).hasValueSatisfying(c -> assertThat(c.nextOffset()).isEqualTo(1_670));
        assertThat(Checkpoint.of(fromCheckpoint.state().orElseThrow(), SETTINGS)).isEqualTo(
                checkpointsAt(log, 3_000).get(3_000L));
    }

    @Test
    void theEarliestCheckpointTheLogStillReachesIsTheStart() {
        List<Inbound> log = log(600);
        Map<Long, Checkpoint> taken = checkpointsAt(log, 100, 300, 500);
        List<RecordedCheckpoint> listed = List.of(listed(500, taken.get(500L)), listed(100, taken.get(100L)),
                listed(300, taken.get(300L)));
        List<Long> read = new ArrayList<>();
        PartitionReplay replay = PartitionReplay.start(EPOCHS, 250, listed, c -> {
            read.add(c.nextOffset());
            return Optional.of(taken.get(c.nextOffset()));
        });
        outputs(replay, log, 0);
        assertThat(replay.readFrom()).isEqualTo(300);
        assertThat(read).as("started from 300, compared 500").containsExactly(300L, 500L);
        assertThat(replay.checkpointsCompared()).isEqualTo(1);
        assertThat(replay.divergences()).isEmpty();
    }

    @Test
    void withoutACheckpointTheLogReachesTheReplayCannotVerify() {
        List<Inbound> log = log(200);
        Checkpoint at50 = checkpointsAt(log, 50).get(50L);
        PartitionReplay replay = PartitionReplay.start(EPOCHS, 120, List.of(listed(50, at50)), c -> Optional.of(at50));
        assertThat(replay.unverifiable()).hasValueSatisfying(reason -> assertThat(reason)
                .contains("records 0..119 are gone").contains("no checkpoint covers them"));
        PartitionReplay pruned = PartitionReplay.start(EPOCHS, 20, List.of(listed(50, at50)), c -> Optional.empty());
        assertThat(pruned.unverifiable()).as("a checkpoint removed since it was listed").isPresent();
    }

    @Test
    void aCheckpointThatIsNotTheStateTheLogLeavesIsNamed() {
        List<Inbound> log = log(400);
        Checkpoint at270 = checkpointsAt(log, 270).get(270L);
        Lease first = at270.leases().get(0);
        List<Lease> forged = new ArrayList<>(at270.leases());
        forged.set(0, new Lease(first.resource(), "mallory", first.fencingToken(), first.acquiredAt(), first.expiresAt()));
        List<RequestEntry> fewer = at270.requests().subList(1, at270.requests().size());
        assertThat(at270.waiters()).as("acquires waiting at the checkpoint").isNotEmpty();
        Checkpoint edited = new Checkpoint(at270.position(), forged, fewer,
                at270.waiters().subList(1, at270.waiters().size()));

        PartitionReplay replay = PartitionReplay.start(EPOCHS, 0, List.of(listed(270, edited)), c -> Optional.of(edited));
        outputs(replay, log, 0);
        assertThat(replay.checkpointsCompared()).isEqualTo(1);
        assertThat(replay.divergences()).singleElement().satisfies(d -> {
            assertThat(d.kind()).isEqualTo(Divergence.Kind.CHECKPOINT_DIFFERS);
            assertThat(d.source()).isEqualTo("lock.commands-0@270");
            assertThat(d.found()).contains("lease " + first.resource()).contains("mallory")
                    .contains("request " + at270.requests().get(0).requestId() + " missing")
                    .contains("waiter " + at270.waiters().get(0).requestId() + " missing");
        });
        assertThat(at270.differenceFrom(at270)).isEmpty();
    }
}
