package dev.lockstep.engine;

import dev.lockstep.protocol.Growth;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ResourcePartition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A command topic of several partitions run through the state machine in memory, each by its own
 * {@link PartitionDriver}, that grows as the worker grows one: a seal on every partition, then
 * the carries and takens the seals asked for, appended where they say (the engine tests' fixture
 * for growths).
 */
final class GrowingTopic {

    static final String TOPIC = "lock.commands";

    final EngineSettings settings;
    final List<PartitionDriver> partitions = new ArrayList<>();
    /** The transfers asked for and not yet appended, in the order they were asked for. */
    final List<Outbound.Transfer> inFlight = new ArrayList<>();

    GrowingTopic(int count) {
        settings = new EngineSettings(Limits.defaults(), Duration.ofMinutes(10),
                new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", count);
        for (int p = 0; p < count; p++) {
            add();
        }
    }

    private void add() {
        partitions.add(PartitionDriver.worker(new PartitionMachine(settings), PartitionState.empty(PartitionPosition.START),
                TOPIC, partitions.size()));
    }

    PartitionDriver partition(int p) {
        return partitions.get(p);
    }

    /** The partition the resource is routed to by {@code count} partitions. */
    static int home(String resource, int count) {
        return ResourcePartition.of(resource, count);
    }

    /** A name routed to {@code before} by {@code from} partitions and to {@code after} by {@code to}. */
    static String resource(String prefix, int from, int before, int to, int after) {
        for (int i = 0; ; i++) {
            String name = prefix + "-" + i;
            if (home(name, from) == before && home(name, to) == after) {
                return name;
            }
        }
    }

    /** The command, keyed by its resource, appended to partition {@code p} at {@code at}. */
    Step send(int p, String resource, String json, Instant at) {
        return partitions.get(p).append(resource, json, at);
    }

    /** Partitions are added up to {@code to} (starting with the count recorded), and every one is sealed at {@code at}. */
    List<Step> seal(int to, Instant at) {
        return seal(partitions.get(0).state().position().layoutOr(settings).partitions(), to, at);
    }

    /** As {@link #seal(int, Instant)}, the seals saying the topic grew from {@code from} (a seal appended again says what the first said). */
    List<Step> seal(int from, int to, Instant at) {
        while (partitions.size() < to) {
            add();
        }
        List<Step> steps = new ArrayList<>();
        for (int p = 0; p < to; p++) {
            RecordHeaders headers = new RecordHeaders();
            headers.add(Growth.SEAL, Growth.sealHeader(from, to));
            steps.add(record(p, null, headers, at));
        }
        return steps;
    }

    /** Every transfer in flight is appended where it says, at {@code at}, in order. */
    List<Step> deliver(Instant at) {
        List<Step> steps = new ArrayList<>();
        while (!inFlight.isEmpty()) {
            Outbound.Transfer transfer = inFlight.remove(0);
            RecordHeaders headers = new RecordHeaders();
            headers.add(transfer.header(), transfer.headerValue());
            steps.add(record(transfer.partition(), transfer.key().orElse(null), headers, at, transfer.value()));
        }
        return steps;
    }

    Step record(int p, String key, RecordHeaders headers, Instant at) {
        return record(p, key, headers, at, null);
    }

    private Step record(int p, String key, RecordHeaders headers, Instant at, byte[] value) {
        Step step = partitions.get(p).append(key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value == null || value.length == 0 ? null : value, InboundHeaders.of(headers), Optional.of(at));
        inFlight.addAll(step.transfers());
        return step;
    }
}
