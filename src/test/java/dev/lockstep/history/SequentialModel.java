package dev.lockstep.history;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandClock;
import dev.lockstep.core.Decision;
import dev.lockstep.core.Lease;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.Fingerprint;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
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
 * The command log replayed one record at a time through an arbiter, with nothing but memory:
 * what a correct lockstep must have answered, whatever crashed while it ran. The rules are the
 * protocol's: a record that cannot be answered is dead-lettered, a malformed one is
 * {@code invalid}, a request ID seen before gets its first reply again (or {@code invalid} when
 * the command differs), and "now" is the log-append time, never earlier than the partition's last.
 */
final class SequentialModel {

    /** A command applied for the first time: where, when, and what it had to answer. */
    record Applied(LoggedRecord record, Command command, Instant now, String reply) {
    }

    private final Arbitration arbitration;
    private final CommandDecoder decoder = new CommandDecoder(Limits.defaults());
    private final Map<String, Lease> latest = new HashMap<>();
    private final Map<Integer, CommandClock> clocks = new HashMap<>();
    private final Map<String, Applied> applied = new LinkedHashMap<>();
    private final Map<String, Set<String>> expected = new HashMap<>();
    private final Map<String, LoggedRecord> firstRecord = new HashMap<>();

    private SequentialModel(Arbitration arbitration) {
        this.arbitration = arbitration;
    }

    static SequentialModel replay(List<LoggedRecord> log, Arbitration arbitration) {
        SequentialModel model = new SequentialModel(arbitration);
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

    Optional<LoggedRecord> firstRecordOf(String requestId) {
        return Optional.ofNullable(firstRecord.get(requestId));
    }

    private void step(LoggedRecord record) {
        ParsedCommand parsed = decoder.decode(record.key(), record.value());
        if (parsed instanceof ParsedCommand.Invalid invalid) {
            expect(record, invalid.requestId(), ReplyEncoder.encode(Reply.Rejected.of(invalid)));
        } else if (parsed instanceof ParsedCommand.Valid valid) {
            Command command = valid.command();
            Applied prior = applied.get(command.requestId());
            if (prior != null) {
                expect(record, command.requestId(), Fingerprint.of(prior.command()).equals(Fingerprint.of(command))
                        ? prior.reply().getBytes(StandardCharsets.UTF_8)
                        : ReplyEncoder.encode(Reply.Rejected.reusedRequestId(command)));
                return;
            }
            Instant now = clocks.computeIfAbsent(record.partition(), p -> new CommandClock(Instant.EPOCH))
                    .next(Optional.of(record.logAppendTime()), record.logAppendTime());
            Decision decision = arbitration.decide(command, Optional.ofNullable(latest.get(command.resource())), now);
            decision.write().ifPresent(lease -> latest.put(lease.resource(), lease));
            byte[] reply = ReplyEncoder.encode(new Reply.Decided(command, decision.verdict()));
            applied.put(command.requestId(),
                    new Applied(record, command, now, new String(reply, StandardCharsets.UTF_8)));
            expect(record, command.requestId(), reply);
        }
        // Unreadable: dead-lettered, no reply is possible
    }

    private void expect(LoggedRecord record, String requestId, byte[] reply) {
        firstRecord.putIfAbsent(requestId, record);
        expected.computeIfAbsent(requestId, id -> new LinkedHashSet<>()).add(new String(reply, StandardCharsets.UTF_8));
    }
}
