package dev.lockstep.faults;

import dev.lockstep.history.History;
import dev.lockstep.history.LoggedRecord;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.Growth;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

/** Reads a run's history back from the broker: the command log and every reply, whole. */
final class Histories {

    private Histories() {
    }

    /**
     * Waits until every sent request has a reply (or {@code patience} has passed: the checker
     * then names the unanswered ones), and returns the history.
     */
    static History await(KafkaSettings kafka, TopicNames topics, Set<String> sent, Duration patience) {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            History history = read(kafka, topics, sent);
            if (history.replies().keySet().containsAll(sent) || System.nanoTime() > deadline) {
                // A batch's events are acknowledged with its replies, not necessarily visible with them.
                LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
                return read(kafka, topics, sent);
            }
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
        }
    }

    /**
     * A run of real clients, whose request IDs the test does not see: the requests are those the
     * command log holds (what the broker acknowledged is what it kept). Waits until each is answered
     * (or {@code patience} has passed: the checker then names the unanswered ones).
     */
    static History awaitAnswered(KafkaSettings kafka, TopicNames topics, Duration patience) {
        CommandDecoder decoder = new CommandDecoder(Limits.defaults());
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            History read = read(kafka, topics, Set.of());
            Set<String> logged = new HashSet<>();
            read.log().forEach(record -> {
                if (decoder.decode(record.key(), record.value()) instanceof ParsedCommand.Valid valid) {
                    logged.add(valid.requestId());
                }
            });
            if (read.replies().keySet().containsAll(logged) || System.nanoTime() > deadline) {
                return new History(logged, read.log(), read.replies());
            }
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos());
        }
    }

    static History read(KafkaSettings kafka, TopicNames topics, Set<String> sent) {
        List<LoggedRecord> log = new ArrayList<>();
        Map<String, List<byte[]>> replies = new HashMap<>();
        try (LogReader reader = new LogReader(kafka)) {
            reader.readAll(topics.commands(), partitions(reader, topics.commands()), r -> {
                if (r.timestampType() != TimestampType.LOG_APPEND_TIME) {
                    throw new IllegalStateException("the command topic must use LogAppendTime: " + r.timestampType());
                }
                // A growth's taken raises its partition's token base: the checker places grants by it.
                Header taken = r.headers().lastHeader(Growth.TAKEN);
                OptionalLong bound = taken == null ? OptionalLong.empty()
                        : Growth.read(Growth.TAKEN, r.key(), r.value(), taken.value(), 1) instanceof Growth.Read.Taken t
                                ? OptionalLong.of(t.tokenBound()) : OptionalLong.empty();
                log.add(new LoggedRecord(r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()), r.key(),
                        r.value(), bound));
            });
            reader.readAll(topics.replies(), partitions(reader, topics.replies()), r -> replies.computeIfAbsent(
                    new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>()).add(r.value()));
        }
        return new History(sent, log, replies);
    }

    private static Set<Integer> partitions(LogReader reader, String topic) {
        return IntStream.range(0, reader.partitionCount(topic)).boxed().collect(Collectors.toSet());
    }

    /** Whether a growth of the topic's command topic was recorded finished (every partition routes by its count). */
    static boolean growthFinished(LockstepExtension env, TopicNames topics) throws SQLException {
        try (Connection c = env.jdbc(); PreparedStatement select = c.prepareStatement(
                "SELECT count(*) FROM topic_growths WHERE topic = ? AND finished_at IS NOT NULL")) {
            select.setString(1, topics.commands());
            try (ResultSet rs = select.executeQuery()) {
                rs.next();
                return rs.getInt(1) == 1;
            }
        }
    }

    /** Why each epoch of the topic's partitions began, as the database recorded it. */
    static List<String> epochReasons(LockstepExtension env, TopicNames topics) {
        List<String> reasons = new ArrayList<>();
        try (Connection c = env.jdbc();
                PreparedStatement select = c.prepareStatement("SELECT reason FROM partition_epochs WHERE topic = ?")) {
            select.setString(1, topics.commands());
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    reasons.add(rs.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the recorded epochs failed", e);
        }
        return reasons;
    }
}
