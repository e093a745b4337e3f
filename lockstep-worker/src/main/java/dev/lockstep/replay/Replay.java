package dev.lockstep.replay;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.RecordedEpoch;
import dev.lockstep.engine.Step;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.CheckpointReader;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.store.RecordedState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * {@code lockstep replay}: re-runs the retained command log through the worker's engine and
 * compares what it yields with what was published (replies, events) and stored (leases, positions).
 * Reads only: no group, no commits, no database writes.
 *
 * <pre>{@code
 * ReplayReport report = new Replay(kafka, database, topics).run(Optional.empty(), window, (read, total) -> {});
 * System.out.print(report.text());
 * System.exit(report.exitCode());      // 0 reproduced, 1 diverged, 2 cannot verify
 * }</pre>
 */
public final class Replay {

    /** Told how far a replay has read: {@code read} of {@code total} command records. */
    @FunctionalInterface
    public interface Progress {
        void update(long read, long total);
    }

    private final KafkaSettings kafka;
    private final DatabaseSettings database;
    private final TopicNames topics;

    public Replay(KafkaSettings kafka, DatabaseSettings database, TopicNames topics) {
        this.kafka = kafka;
        this.database = database;
        this.topics = topics;
    }

    /**
     * @param only one partition, or all
     * @param window the log time whose records are compared (all records are replayed)
     * @param progress told the records read so far and in all, now and then
     */
    public ReplayReport run(Optional<Integer> only, TimeWindow window, Progress progress) {
        TopicDescription described = describe();
        String topicId = described.topicId().toString();
        int partitions = described.partitions().size();
        RecordedState recorded = RecordedState.read(database, topics.commands());
        List<String> unverifiable = new ArrayList<>();
        List<String> startedFrom = new ArrayList<>();
        Map<Integer, Long> replayed = new TreeMap<>();
        List<Divergence> divergences = new ArrayList<>();
        int partitionsCompared = 0;
        int checkpointsCompared = 0;
        long records = 0;
        try (LogReader reader = new LogReader(kafka); CheckpointReader checkpoints = CheckpointReader.open(database)) {
            Map<Integer, LogReader.Bounds> ranges = new TreeMap<>();
            for (int p = 0; p < partitions; p++) {
                if (only.isEmpty() || only.get() == p) {
                    ranges.put(p, reader.bounds(new TopicPartition(topics.commands(), p)));
                }
            }
            long total = ranges.values().stream().mapToLong(b -> b.end() - b.start()).sum();
            Expectations expected = new Expectations(window, topics.commands(), total);
            long[] read = {0};
            Map<Integer, PartitionReplay> verifiable = new TreeMap<>();
            for (Map.Entry<Integer, LogReader.Bounds> range : ranges.entrySet()) {
                int p = range.getKey();
                TopicPartition tp = new TopicPartition(topics.commands(), p);
                LogReader.Bounds bounds = range.getValue();
                long applied = Optional.ofNullable(recorded.progress().get(p))
                        .filter(r -> r.topicId().equals(Optional.of(topicId)))
                        .map(RecordedState.Progress::nextOffset).orElse(0L);
                PartitionReplay replay = replayPartition(reader, checkpoints, recorded, topicId, tp, bounds,
                        (record, step) -> expected.add(record, step, record.offset() < applied), count -> {
                            read[0] += count;
                            if (read[0] % 50_000 == 0) {
                                progress.update(read[0], total);
                            }
                        });
                records += replay.replayed();
                checkpointsCompared += replay.checkpointsCompared();
                divergences.addAll(replay.divergences());
                replay.startedFrom().ifPresent(c -> startedFrom.add(tp + ": from offset " + c.nextOffset()
                        + " (log time " + c.clock() + ")" + (c.nextOffset() > bounds.start() ? "; records "
                        + bounds.start() + ".." + (c.nextOffset() - 1) + ", retained before it, were not replayed" : "")));
                if (replay.unverifiable().isPresent()) {
                    if (bounds.end() > bounds.start()) {
                        unverifiable.add(tp + ": " + replay.unverifiable().get());
                    }
                    continue;
                }
                replayed.put(p, replay.readFrom());
                verifiable.put(p, replay);
                if (compareState(tp, replay, bounds, recorded, divergences, unverifiable)) {
                    partitionsCompared++;
                }
            }
            progress.update(read[0], total);
            // Request IDs are per partition and replies do not say which: only a replay of every
            // partition from its first record knows every request ID a reply may carry.
            boolean complete = only.isEmpty() && unverifiable.isEmpty() && startedFrom.isEmpty() && window.isAll();
            PublicationCheck check = new PublicationCheck(expected, complete, replayed);
            Set<String> replyTopics = new TreeSet<>(expected.replies().keySet());
            replyTopics.add(topics.replies());
            Set<String> existing = existingTopics();
            // A running worker goes on applying, and publishing, while the replay runs (a tick for a
            // lease that ended, a client's command): what was published is read up to where it
            // stands now, and the records appended since the log was read are replayed first, owing
            // nothing. Everything read was then published for a record the replay saw.
            Map<String, Map<TopicPartition, LogReader.Bounds>> replies = new TreeMap<>();
            for (String topic : replyTopics) {
                if (existing.contains(topic)) {
                    replies.put(topic, reader.bounds(topic, Set.of()));
                } else {
                    unverifiable.add("reply topic " + topic + " does not exist: its replies were not compared");
                }
            }
            Map<TopicPartition, LogReader.Bounds> events = reader.bounds(topics.events(), replayed.keySet());
            records += replayAppended(reader, verifiable, ranges, expected);
            replies.forEach((topic, bounds) -> {
                reader.readAll(bounds, r -> check.reply(topic, published(r)));
                check.endOfReplies(topic);
            });
            reader.readAll(events, r -> check.event(published(r)));
            check.endOfEvents();
            divergences.addAll(recoverTexts(reader, checkpoints, recorded, topicId, ranges, check.findings()));
            return new ReplayReport(records, check.repliesCompared(), check.eventsCompared(), partitionsCompared,
                    checkpointsCompared, startedFrom, divergences, unverifiable);
        }
    }

    /**
     * The records appended to each verifiable partition since its log was read, through its replay
     * (they owe nothing: the database said they were not applied yet); {@code ranges} are extended
     * to them. How many there were.
     */
    private long replayAppended(LogReader reader, Map<Integer, PartitionReplay> verifiable,
            Map<Integer, LogReader.Bounds> ranges, Expectations expected) {
        long appended = 0;
        for (Map.Entry<Integer, PartitionReplay> partition : verifiable.entrySet()) {
            TopicPartition tp = new TopicPartition(topics.commands(), partition.getKey());
            LogReader.Bounds read = ranges.get(partition.getKey());
            long end = reader.bounds(tp).end();
            if (end > read.end()) {
                reader.read(tp, new LogReader.Bounds(read.end(), end), r -> partition.getValue().apply(Inbound.of(r),
                        (record, step) -> expected.add(record, step, false)));
                ranges.put(partition.getKey(), new LogReader.Bounds(read.start(), end));
                appended += end - read.end();
            }
        }
        return appended;
    }

    /**
     * The first run kept digests: the texts the findings name as expected come from running the
     * same records (the same bounds) through the engine again, which only a divergence costs.
     */
    private List<Divergence> recoverTexts(LogReader reader, CheckpointReader checkpoints, RecordedState recorded,
            String topicId, Map<Integer, LogReader.Bounds> ranges, List<ExpectedTexts.Finding> findings) {
        ExpectedTexts texts = new ExpectedTexts();
        findings.forEach(f -> f.wanted().ifPresent(texts::want));
        if (!texts.isEmpty()) {
            ranges.forEach((p, bounds) -> replayPartition(reader, checkpoints, recorded, topicId,
                    new TopicPartition(topics.commands(), p), bounds, texts::add, count -> { }));
        }
        return texts.resolve(findings);
    }

    /** One partition's records within {@code bounds} through the engine, from where it can start. */
    private static PartitionReplay replayPartition(LogReader reader, CheckpointReader checkpoints,
            RecordedState recorded, String topicId, TopicPartition tp, LogReader.Bounds bounds,
            BiConsumer<Inbound, Step> sink, LongConsumer read) {
        int p = tp.partition();
        List<RecordedEpoch> epochs = recorded.epochs().getOrDefault(p, List.of()).stream()
                .filter(e -> e.topicId().equals(topicId)).toList();
        PartitionReplay replay = PartitionReplay.start(epochs, bounds.start(), recorded.checkpoints()
                .getOrDefault(p, List.of()).stream().filter(c -> c.topicId().equals(topicId)).toList(),
                checkpoints::read);
        long from = Math.max(bounds.start(), Math.min(replay.readFrom(), bounds.end()));
        read.accept(from - bounds.start());
        reader.read(tp, new LogReader.Bounds(from, bounds.end()), r -> {
            replay.apply(Inbound.of(r), sink);
            read.accept(1);
        });
        return replay;
    }

    /** Compares the database's rows when it is exactly where the replay of the log ends; says why not otherwise. */
    private static boolean compareState(TopicPartition tp, PartitionReplay replay, LogReader.Bounds bounds,
            RecordedState recorded, List<Divergence> divergences, List<String> unverifiable) {
        RecordedState.Progress progress = recorded.progress().get(tp.partition());
        PartitionState state = replay.state().orElseThrow();
        if (progress == null) {
            return false;
        }
        // Where the replay stands after reading up to the log's end: past the last record applied. A
        // transaction's marker at the end (a producer's commit, an abort) is no record: the worker
        // does not stand past it either.
        if (progress.nextOffset() != state.position().nextOffset()) {
            unverifiable.add(tp + ": the database is at offset " + progress.nextOffset() + ", the log ends at "
                    + bounds.end() + " (a worker is running, or behind): its rows were not compared");
            return false;
        }
        divergences.addAll(StateCheck.compare(tp.toString(), state, replay.machine().orElseThrow().settings(), progress,
                recorded.leases().getOrDefault(tp.partition(), List.of())));
        return true;
    }

    private static Published published(ConsumerRecord<byte[], byte[]> r) {
        return new Published(r.partition(), r.offset(), r.key() == null ? "" : new String(r.key(), StandardCharsets.UTF_8),
                r.value());
    }

    private TopicDescription describe() {
        return ask(admin -> admin.describeTopics(List.of(topics.commands())).allTopicNames(),
                "describing the command topic " + topics.commands()).get(topics.commands());
    }

    private Set<String> existingTopics() {
        return ask(admin -> admin.listTopics().names(), "listing topics");
    }

    private <T> T ask(Function<Admin, KafkaFuture<T>> question, String what) {
        try (Admin admin = Admin.create(kafka.with(Map.of()))) {
            return question.apply(admin).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while " + what, e);
        } catch (ExecutionException e) {
            throw new KafkaException(what + " failed: " + e.getCause().getMessage(), e.getCause());
        }
    }
}
