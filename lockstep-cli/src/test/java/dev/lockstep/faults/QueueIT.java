package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static dev.lockstep.testkit.Commands.release;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.Commands;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.testkit.TopicCollector;
import dev.lockstep.worker.WorkerSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fair waiting on a real broker and database: waiters get one reply each, in the order they
 * queued, when the holder releases or its lease ends (shown by a tick); a wait that ends first is
 * answered {@code wait_expired} with no other traffic; each waiter sent one command; a replay of
 * the log reproduces every reply and event.
 */
class QueueIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static String outcome(ConsumerRecord<byte[], byte[]> reply) {
        return Commands.parse(reply.value()).path("outcome").asText();
    }

    @Test
    void waitersAreServedInOrderByReleaseByExpiryAndTheirWaitsEnd() throws Exception {
        TopicNames topics = env.topics().suffixed("-queue");
        LockstepExtension.createTopics(env.kafka(), topics);
        String second = newId();
        String third = newId();
        String impatient = newId();
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("queue"));
                Wire wire = new Wire(env.kafka(), topics);
                TopicCollector events = TopicCollector.start(env.kafka(), topics.events());
                TopicCollector commands = TopicCollector.start(env.kafka(), topics.commands())) {
            JsonNode first = wire.call(acquire(newId(), "printer", "first", 30));
            assertThat(first.path("outcome").asText()).isEqualTo("acquired");
            wire.send(acquire(second, "printer", "second", 2).put("wait_ms", 60_000));
            wire.send(acquire(third, "printer", "third", 30).put("wait_ms", 60_000));
            wire.send(acquire(impatient, "printer", "impatient", 30).put("wait_ms", 1_500));
            events.await(r -> EventCodec.decode(r.value()).kind() == LeaseEvent.Kind.QUEUED, 3);
            assertThat(wire.await(second, 0)).as("no reply while waiting").isEmpty();
            Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    worker.registry().find("lockstep.waiters").gauges()).as("one gauge per partition")
                    .hasSize(LockstepExtension.PARTITIONS)
                    .extracting(gauge -> gauge.getId().getTag("partition") + "=" + (long) gauge.value())
                    .contains(ResourcePartition.of("printer".getBytes(StandardCharsets.UTF_8), LockstepExtension.PARTITIONS) + "=3"));

            JsonNode released = wire.call(release(newId(), "printer", "first"));
            assertThat(released.path("outcome").asText()).isEqualTo("released");
            ConsumerRecord<byte[], byte[]> granted = wire.await(second, 1).get(0);
            assertThat(outcome(granted)).isEqualTo("acquired");
            assertThat(granted.partition()).as("a waiter read back from the database is answered where its "
                    + "request asked: no partition named, so by its request ID").isEqualTo(ResourcePartition.of(
                    second.getBytes(StandardCharsets.UTF_8), LockstepExtension.PARTITIONS));
            long secondToken = Commands.parse(granted.value()).path("lock").path("fencing_token").asLong();

            // Nothing else is sent: the wait of the impatient one ends, then second's 2 s lease,
            // each shown by a tick, which hands the resource to third.
            ConsumerRecord<byte[], byte[]> expired = wire.await(impatient, 1).get(0);
            assertThat(outcome(expired)).isEqualTo("not_acquired");
            assertThat(Commands.parse(expired.value()).path("reason").asText()).isEqualTo("wait_expired");
            ConsumerRecord<byte[], byte[]> takenOver = wire.await(third, 1).get(0);
            assertThat(outcome(takenOver)).isEqualTo("acquired");
            assertThat(Commands.parse(takenOver.value()).path("lock").path("fencing_token").asLong())
                    .isGreaterThan(secondToken);

            Thread.sleep(500);
            for (String waiter : List.of(second, third, impatient)) {
                assertThat(wire.await(waiter, 1)).as("one reply for " + waiter).hasSize(1);
                assertThat(commands.matching(r -> r.value() != null
                        && new String(r.value(), StandardCharsets.UTF_8).contains(waiter)))
                        .as("one command from " + waiter + ": no polling").hasSize(1);
            }
            List<LeaseEvent> kinds = events.all().stream().map(r -> EventCodec.decode(r.value())).toList();
            assertThat(kinds).extracting(LeaseEvent::kind).contains(LeaseEvent.Kind.WAIT_EXPIRED,
                    LeaseEvent.Kind.TAKEN_OVER);
        }

        ReplayReport replay = new Replay(env.kafka(), env.database(), topics)
                .run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
        assertThat(replay.divergences()).isEmpty();
        assertThat(replay.unverifiable()).isEmpty();
    }
}
