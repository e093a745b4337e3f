package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Limits;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * Expiry events against a model of their own, over random histories of short leases on a few
 * resources: before a record's own events, exactly the leases that ended up to its log time and
 * were not yet ended are shown expired, each once, in the order they ended, whether the record is
 * a command or a tick. And a state kept for a
 * replay ({@link PartitionState#forReplay()}) yields the same bytes as the worker's.
 */
class ExpiryOrderTest {

    private static final Instant T0 = Instant.parse("2026-12-04T00:00:00Z");
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofMinutes(5),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 1);
    private static final String[] TYPES = {"acquire", "acquire", "renew", "release", "status"};

    /** A lease as the events say it stands: its end, until an event ends it. */
    private record Held(String resource, long token, Instant end) {
    }

    @RepeatedTest(20)
    void everyLeaseIsShownExpiredOnceInTheOrderLeasesEnd(RepetitionInfo repetition) {
        Random random = new Random(repetition.getCurrentRepetition());
        PartitionMachine machine = new PartitionMachine(SETTINGS);
        PartitionDriver worker = PartitionDriver.worker(machine, PartitionState.empty(PartitionPosition.START),
                "lock.commands", 0);
        PartitionState replayed = PartitionState.empty(PartitionPosition.START);
        replayed.forReplay();
        PartitionDriver replay = PartitionDriver.log(machine, replayed);
        Map<String, Held> held = new HashMap<>();
        Instant time = T0;
        int expired = 0;
        for (long offset = 0; offset < 600; offset++) {
            time = time.plusMillis(random.nextInt(700));
            Step step = next(worker, offset, time, random);
            assertThat(bytes(replay.apply(worker.log().get((int) offset)))).isEqualTo(bytes(step));

            Instant now = time;
            List<Held> due = held.values().stream().filter(h -> !h.end().isAfter(now))
                    .sorted(Comparator.comparing(Held::end).thenComparing(Held::resource)).toList();
            List<LeaseEvent> events = step.events().stream().map(e -> EventCodec.decode(e.value())).toList();
            List<LeaseEvent> expiries = events.stream().filter(e -> e.kind() == LeaseEvent.Kind.EXPIRED).toList();
            assertThat(expiries).extracting(LeaseEvent::resource, LeaseEvent::fencingToken, LeaseEvent::at)
                    .containsExactlyElementsOf(due.stream().map(h -> tuple(h.resource(),
                            h.token(), h.end())).toList());
            expired += expiries.size();
            for (LeaseEvent event : events) {
                switch (event.kind()) {
                    case EXPIRED, RELEASED -> held.remove(event.resource());
                    default -> held.put(event.resource(), new Held(event.resource(), event.fencingToken(),
                            event.expiresAt().orElseThrow()));
                }
            }
        }
        assertThat(expired).as("the histories let leases expire").isGreaterThan(20);
    }

    /** A command, or now and then a tick (which shows expiries as any record does, and is not answered). */
    private static Step next(PartitionDriver partition, long offset, Instant at, Random random) {
        if (random.nextInt(6) == 0) {
            return partition.tick(at);
        }
        String resource = "r" + random.nextInt(4);
        String type = TYPES[random.nextInt(TYPES.length)];
        String json = "{\"request_id\":\"q" + offset + "\",\"type\":\"" + type + "\",\"resource\":\"" + resource + "\""
                + (type.equals("status") ? "" : ",\"owner\":\"o" + random.nextInt(2) + "\"")
                + (type.equals("acquire") || type.equals("renew") ? ",\"ttl_seconds\":" + (1 + random.nextInt(3)) : "")
                + "}";
        return partition.append(resource, json, at);
    }

    /** Everything a step publishes, as text, in order. */
    private static List<String> bytes(Step step) {
        List<String> out = new ArrayList<>();
        step.events().forEach(e -> out.add(e.entry().value()));
        if (step.answer().isPresent() && step.answer().get() instanceof Outbound.ReplyRecord reply) {
            out.add(new String(reply.value(), StandardCharsets.UTF_8));
        }
        return out;
    }
}
