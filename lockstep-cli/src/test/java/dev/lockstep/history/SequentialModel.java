package dev.lockstep.history;

import dev.lockstep.engine.InboundHeaders;
import dev.lockstep.core.Command;
import dev.lockstep.engine.Arbitration;
import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.RequestEntry;
import dev.lockstep.engine.Step;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.ParsedCommand;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The command log replayed through the product's own {@link PartitionMachine}, one partition at a
 * time in memory: what a correct lockstep must have answered, whatever crashed while it ran.
 * One engine, never two: the worker runs the same machine over the same records.
 */
final class SequentialModel {

    /** A command applied for the first time: where, when, and what it had to answer. */
    record Applied(LoggedRecord record, Command command, Instant now, String reply) {
    }

    private final PartitionMachine machine;
    private final CommandDecoder decoder;
    private final Map<Integer, PartitionState> states = new HashMap<>();
    private final Map<String, Applied> applied = new LinkedHashMap<>();
    private final Map<String, Set<String>> expected = new HashMap<>();
    private final Map<String, LoggedRecord> firstRecord = new HashMap<>();

    private final Map<String, Outbound.Event> events = new LinkedHashMap<>();

    private final Map<Integer, PartitionPosition> starts;
    private final String topic;

    private SequentialModel(EngineSettings settings, Map<Integer, PartitionPosition> starts, Arbitration arbitration,
            String topic) {
        this.machine = new PartitionMachine(settings, arbitration);
        this.starts = starts;
        this.decoder = new CommandDecoder(settings.limits());
        this.topic = topic;
    }

    /** @param topic the command topic's name, which event IDs and sources carry */
    static SequentialModel replay(List<LoggedRecord> log, EngineSettings settings,
            Map<Integer, PartitionPosition> starts, Arbitration arbitration, String topic) {
        SequentialModel model = new SequentialModel(settings, starts, arbitration, topic);
        log.stream()
                .sorted(Comparator.comparingInt(LoggedRecord::partition).thenComparingLong(LoggedRecord::offset))
                .forEach(model::step);
        return model;
    }

    /** Commands applied for the first time, in log order within each partition. */
    List<Applied> applied() {
        return List.copyOf(applied.values());
    }

    Optional<Applied> applied(String requestId) {
        return Optional.ofNullable(applied.get(requestId));
    }

    /** The replies a correct worker may have published for this request ID; empty when none. */
    Set<String> expectedReplies(String requestId) {
        return expected.getOrDefault(requestId, Set.of());
    }

    Set<String> answerableRequestIds() {
        return expected.keySet();
    }

    /** The events the log makes, by event ID, in log order within each partition. */
    Map<String, Outbound.Event> events() {
        return events;
    }

    Optional<LoggedRecord> firstRecordOf(String requestId) {
        return Optional.ofNullable(firstRecord.get(requestId));
    }

    private void step(LoggedRecord record) {
        PartitionState state = states.computeIfAbsent(record.partition(),
                p -> PartitionState.empty(starts.getOrDefault(p, PartitionPosition.START)));
        Inbound inbound = new Inbound(topic, record.partition(), record.offset(), record.key(), record.value(),
                InboundHeaders.NONE, Optional.of(record.logAppendTime()));
        Step step = machine.step(inbound, state);
        step.events().forEach(e -> events.put(e.entry().eventId(), e));
        state.forgetEventsBelow(record.offset());
        Outbound out = step.answer();
        if (!(out instanceof Outbound.ReplyRecord reply)) {
            return; // dead-lettered: no reply is possible
        }
        String value = new String(reply.value(), StandardCharsets.UTF_8);
        firstRecord.putIfAbsent(reply.requestId(), record);
        expected.computeIfAbsent(reply.requestId(), id -> new LinkedHashSet<>()).add(value);
        Optional<RequestEntry> entry = state.request(reply.requestId()).filter(e -> e.offset() == record.offset());
        if (entry.isPresent() && decoder.decode(record.key(), record.value()) instanceof ParsedCommand.Valid valid) {
            applied.put(reply.requestId(), new Applied(record, valid.command(), entry.get().appliedAt(), value));
        }
    }
}
