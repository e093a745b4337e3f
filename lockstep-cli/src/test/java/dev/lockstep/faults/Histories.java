package dev.lockstep.faults;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.history.History;
import dev.lockstep.history.ObservedEvents;
import dev.lockstep.history.LoggedRecord;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.worker.WorkerSettings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a run's history back from the broker: the command log, every reply and every event, whole. */
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

    static History read(KafkaSettings kafka, TopicNames topics, Set<String> sent) {
        List<LoggedRecord> log = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(kafka, topics.commands())) {
            if (r.timestampType() != TimestampType.LOG_APPEND_TIME) {
                throw new IllegalStateException("the command topic must use LogAppendTime: " + r.timestampType());
            }
            log.add(new LoggedRecord(r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()), r.key(), r.value()));
        }
        Map<String, List<byte[]>> replies = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(kafka, topics.replies())) {
            replies.computeIfAbsent(new String(r.key(), StandardCharsets.UTF_8), k -> new ArrayList<>()).add(r.value());
        }
        List<ObservedEvents.Published> events = readAll(kafka, topics.events()).stream()
                .map(r -> new ObservedEvents.Published(r.partition(), new String(r.key(), StandardCharsets.UTF_8), r.value()))
                .toList();
        return new History(sent, log, replies, settings(kafka, topics))
                .withEvents(new ObservedEvents(topics.commands(), events));
    }

    /**
     * Where each partition's first epoch started, as the database recorded it: in a database that
     * held leases before (a soak's later rounds), new partitions' tokens start above them.
     */
    static Map<Integer, PartitionPosition> recordedStarts(LockstepExtension env, TopicNames topics) {
        Map<Integer, PartitionPosition> starts = new HashMap<>();
        try (Connection c = env.jdbc(); PreparedStatement select = c.prepareStatement(
                "SELECT partition, start_offset, token_base FROM partition_epochs WHERE topic = ? "
                        + "ORDER BY recorded_at DESC")) {
            select.setString(1, topics.commands());
            try (ResultSet rs = select.executeQuery()) {
                while (rs.next()) {
                    starts.put(rs.getInt(1), new PartitionPosition(rs.getLong(2), Instant.EPOCH, rs.getLong(3),
                            Optional.empty()));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("reading the recorded epochs failed", e);
        }
        return starts;
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

    /** The settings the suite's workers decide under: the defaults, for the suite's topics. */
    static EngineSettings settings(KafkaSettings kafka, TopicNames topics) {
        return WorkerSettings.defaults(kafka).withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT))
                .engine(LockstepExtension.PARTITIONS);
    }

    private static List<ConsumerRecord<byte[], byte[]>> readAll(KafkaSettings kafka, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(kafka.with(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000)),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            return records;
        }
    }
}
