package dev.lockstep.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.LockClient;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.DeadLetterHeaders;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;

/**
 * What {@code lockstep dlq --replay} publishes for a dead letter. As it was, its request ID is
 * answered once: a command decided before gets its stored reply, while the worker remembers the
 * ID (the request retention, in log time). Past that the worker would apply it again, so a dead
 * letter whose command record is that old, or no longer in the log to tell, is refused; only
 * {@code --as-new} publishes it, with a new request ID, as a deliberate new command.
 */
final class DeadLetterReplay {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The tool's clock and the broker's may differ: refuse a little early rather than late. */
    private static final Duration MAX_MARGIN = Duration.ofHours(1);

    /** The record to publish, or why none is. */
    sealed interface Plan {
        record Publish(ProducerRecord<byte[], byte[]> record, Optional<String> newRequestId) implements Plan {
        }

        record Refuse(String reason) implements Plan {
        }
    }

    private final LogReader reader;
    private final String commandTopic;
    private final Duration retention;
    private final Clock clock;

    DeadLetterReplay(LogReader reader, String commandTopic, Duration retention, Clock clock) {
        this.reader = reader;
        this.commandTopic = commandTopic;
        this.retention = retention;
        this.clock = clock;
    }

    Plan plan(ConsumerRecord<byte[], byte[]> dead, boolean asNew) {
        boolean waiter = dead.headers().lastHeader(DeadLetterHeaders.REPLY_REQUEST) != null;
        if (waiter || DeadLetterHeaders.cut(dead.headers())
                || dead.headers().lastHeader(DeadLetterHeaders.DROPPED_HEADERS) != null) {
            // A copy cut to fit the dead-letter topic, or the mark of a waiter's reply (which holds no
            // command): the command itself is still in the command topic, or lost.
            Optional<ConsumerRecord<byte[], byte[]>> whole = source(dead)
                    .flatMap(at -> reader.recordAt(at.tp(), at.offset()));
            if (whole.isEmpty()) {
                return new Plan.Refuse((waiter ? "this dead letter holds the reply to an acquire that waited, not "
                        + "the acquire" : "this dead letter holds only the start of its record (it did not fit the "
                        + "dead-letter topic whole)") + ", and the record is no longer in " + commandTopic);
            }
            ConsumerRecord<byte[], byte[]> record = whole.get();
            return planFor(new ConsumerRecord<>(dead.topic(), dead.partition(), dead.offset(), dead.timestamp(),
                    dead.timestampType(), -1, -1, record.key(), record.value(), withSource(record, dead),
                    Optional.empty()), asNew);
        }
        return planFor(dead, asNew);
    }

    private Plan planFor(ConsumerRecord<byte[], byte[]> dead, boolean asNew) {
        var headers = DeadLetterHeaders.without(dead.headers(), DeadLetterHeaders.ADDED);
        if (asNew) {
            return renamed(dead.value()).<Plan>map(value -> new Plan.Publish(new ProducerRecord<>(commandTopic, null,
                    null, dead.key(), value.bytes(), headers), Optional.of(value.requestId())))
                    .orElseGet(() -> new Plan.Refuse("--as-new needs a command that is a JSON object with a "
                            + "request_id; this value is not one"));
        }
        Optional<String> tooOld = tooOld(dead);
        if (tooOld.isPresent()) {
            return new Plan.Refuse(tooOld.get() + ". The worker remembers a request ID for its request retention ("
                    + retention.toSeconds() + " s, --request-retention) and would apply it again: publishing it as "
                    + "it was could apply one command twice. To send the command again deliberately, as a new "
                    + "request, add --as-new");
        }
        return new Plan.Publish(new ProducerRecord<>(commandTopic, null, null, dead.key(), dead.value(), headers),
                Optional.empty());
    }

    /** {@code topic-partition@offset} read. */
    private record Position(TopicPartition tp, long offset) {
        @Override
        public String toString() {
            return tp + "@" + offset;
        }
    }

    /**
     * Where the dead letter's record is in the command topic: the record a mark marks (the command
     * as it was sent), else its {@code lockstep-source}.
     */
    private Optional<Position> source(ConsumerRecord<byte[], byte[]> dead) {
        Header marked = dead.headers().lastHeader(DeadLetterHeaders.REPLY_OF);
        return position(marked != null ? marked : dead.headers().lastHeader(DeadLetterHeaders.SOURCE))
                .filter(p -> p.tp().topic().equals(commandTopic));
    }

    /** The record's own headers, with the dead letter's source and mark headers, which the age check reads. */
    private static RecordHeaders withSource(ConsumerRecord<byte[], byte[]> record, ConsumerRecord<byte[], byte[]> dead) {
        RecordHeaders headers = DeadLetterHeaders.without(record.headers(), DeadLetterHeaders.ADDED);
        for (String name : List.of(DeadLetterHeaders.SOURCE, DeadLetterHeaders.REPLY_OF)) {
            Header header = dead.headers().lastHeader(name);
            if (header != null) {
                headers.add(header);
            }
        }
        return headers;
    }

    private static Optional<Position> position(Header header) {
        String position = header == null ? "" : new String(header.value(), StandardCharsets.UTF_8);
        int at = position.lastIndexOf('@');
        int dash = at < 0 ? -1 : position.lastIndexOf('-', at);
        if (dash <= 0) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Position(new TopicPartition(position.substring(0, dash),
                    Integer.parseInt(position.substring(dash + 1, at))), Long.parseLong(position.substring(at + 1))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /**
     * Why the dead letter's command record is too old to publish as it was; empty when it is not.
     * A dead letter made from the worker's undeliverable mark is as old as the record it marks,
     * which was decided (and its request ID remembered) at its own log time.
     */
    private Optional<String> tooOld(ConsumerRecord<byte[], byte[]> dead) {
        Optional<Position> at = source(dead);
        if (at.isEmpty()) {
            return Optional.of("its " + DeadLetterHeaders.SOURCE + " header does not name a record of " + commandTopic
                    + ", so its age cannot be told");
        }
        Optional<ConsumerRecord<byte[], byte[]>> command = reader.recordAt(at.get().tp(), at.get().offset());
        if (command.isEmpty() || command.get().timestampType() != TimestampType.LOG_APPEND_TIME) {
            return Optional.of("its command record " + at.get() + " is no longer in the log (or has no log-append "
                    + "time), so its age cannot be told");
        }
        Instant appended = Instant.ofEpochMilli(command.get().timestamp());
        Duration margin = retention.dividedBy(10).compareTo(MAX_MARGIN) < 0 ? retention.dividedBy(10) : MAX_MARGIN;
        Duration age = Duration.between(appended, clock.instant());
        if (age.compareTo(retention.minus(margin)) >= 0) {
            return Optional.of("its command record " + at.get() + " was appended at " + appended + ", "
                    + age.toSeconds() + " s ago");
        }
        return Optional.empty();
    }

    private record Renamed(byte[] bytes, String requestId) {
    }

    /** The command with a new request ID; empty when the value is not a JSON object with one. */
    private static Optional<Renamed> renamed(byte[] value) {
        try {
            JsonNode command = value == null ? null : JSON.readTree(value);
            if (!(command instanceof ObjectNode object) || !object.path("request_id").isTextual()) {
                return Optional.empty();
            }
            String id = LockClient.newRequestId();
            object.put("request_id", id);
            return Optional.of(new Renamed(JSON.writeValueAsBytes(object), id));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
