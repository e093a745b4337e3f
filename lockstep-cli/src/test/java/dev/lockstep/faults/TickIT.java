package dev.lockstep.faults;

import static dev.lockstep.testkit.Commands.acquire;
import static dev.lockstep.testkit.Commands.newId;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.Tick;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Replay;
import dev.lockstep.replay.ReplayReport;
import dev.lockstep.replay.TimeWindow;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import dev.lockstep.testkit.TopicCollector;
import dev.lockstep.worker.WorkerSettings;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lease that ends on a partition no command comes to is shown {@code expired} by a tick the
 * worker appends to that partition, soon after its end; the tick gets no reply, and a replay of
 * the log makes the same event from it.
 */
class TickIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    @Test
    void aLeaseEndingOnAQuietPartitionIsShownExpiredByATick() throws Exception {
        TopicNames topics = env.topics().suffixed("-ticks");
        LockstepExtension.createTopics(env.kafka(), topics);
        String requestId = newId();
        LeaseEvent expired;
        Instant seen;
        try (RunningWorker worker = env.startWorker(WorkerSettings.defaults(env.kafka())
                .withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT)).withGroupId("ticks"));
                Wire wire = new Wire(env.kafka(), topics);
                TopicCollector events = TopicCollector.start(env.kafka(), topics.events());
                TopicCollector commands = TopicCollector.start(env.kafka(), topics.commands())) {
            JsonNode granted = wire.call(acquire(requestId, "quiet", "holder", 1));
            assertThat(granted.path("outcome").asText()).isEqualTo("acquired");
            Instant end = Instant.parse(granted.path("lock").path("expires_at").asText());

            List<ConsumerRecord<byte[], byte[]>> shown = events.await(r -> EventCodec.decode(r.value()).kind()
                    == LeaseEvent.Kind.EXPIRED, 1);
            seen = Instant.now();
            expired = EventCodec.decode(shown.get(0).value());
            assertThat(expired.resource()).isEqualTo("quiet");
            assertThat(expired.at()).isEqualTo(end);
            assertThat(seen).as("shown within the slack and a tick interval after the end, not at the next command")
                    .isBefore(end.plusSeconds(3));

            long tickOffset = Long.parseLong(expired.source().substring(expired.source().lastIndexOf('@') + 1));
            ConsumerRecord<byte[], byte[]> tick = commands.await(r -> r.offset() == tickOffset
                    && r.partition() == shown.get(0).partition(), 1).get(0);
            assertThat(tick.headers().lastHeader(Tick.HEADER)).as("the record that showed it is a tick").isNotNull();
            assertThat(tick.key()).isNull();
            assertThat(expired.requestId()).isEmpty();

            Thread.sleep(500);
            int ticks = commands.matching(r -> r.headers().lastHeader(Tick.HEADER) != null).size();
            assertThat(ticks).as("ticks measure time while the lease may be live: a few per second").isBetween(2, 12);
            Thread.sleep(1_000);
            assertThat(commands.matching(r -> r.headers().lastHeader(Tick.HEADER) != null))
                    .as("none once nothing dated may still be live").hasSize(ticks);
            assertThat(commands.matching(r -> r.headers().lastHeader(Tick.HEADER) != null)).as("each measured from "
                    + "the one before but the first").filteredOn(r -> new String(r.headers().lastHeader(Tick.HEADER)
                            .value(), java.nio.charset.StandardCharsets.UTF_8).contains(";prev=")).hasSize(ticks - 1);
            assertThat(wire.await(requestId, 1)).as("the tick got no reply; the acquire one").hasSize(1);
        }

        ReplayReport replay = new Replay(env.kafka(), env.database(), topics)
                .run(Optional.empty(), TimeWindow.ALL, (read, total) -> { });
        assertThat(replay.divergences()).isEmpty();
        assertThat(replay.unverifiable()).isEmpty();
    }
}
