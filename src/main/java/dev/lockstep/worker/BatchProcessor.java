package dev.lockstep.worker;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandClock;
import dev.lockstep.core.Decision;
import dev.lockstep.core.Lease;
import dev.lockstep.core.LeaseLedger;
import dev.lockstep.protocol.Fingerprint;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyEncoder;
import dev.lockstep.store.LockStore;
import dev.lockstep.store.PartitionId;
import dev.lockstep.store.PartitionProgress;
import dev.lockstep.store.PartitionTransaction;
import dev.lockstep.store.StoredReply;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the records of one partition from one poll in one transaction, and says what to
 * publish for each.
 *
 * <p>Exactly-once application rests on the partition's progress row: it is locked first, and
 * records below its {@code next_offset} were applied already, by this worker or another. They
 * are not applied again; their stored replies are published again, since the previous attempt
 * may have died before the broker acknowledged them. A {@code request_id} seen before is handled
 * the same way, wherever it was first applied.
 */
final class BatchProcessor implements RecordProcessor {

    private static final Logger LOG = LoggerFactory.getLogger(BatchProcessor.class);

    private final LockStore store;
    private final Triage triage;
    private final Clock clock;

    BatchProcessor(LockStore store, Triage triage, Clock clock) {
        this.store = store;
        this.triage = triage;
        this.clock = clock;
    }

    @Override
    public List<Outbound> process(PartitionId partition, List<Inbound> records) {
        List<Triaged> triaged = records.stream().map(triage::triage).toList();
        return store.inPartition(partition, tx -> apply(partition, records, triaged, tx));
    }

    private List<Outbound> apply(PartitionId partition, List<Inbound> records, List<Triaged> triaged,
            PartitionTransaction tx) {
        PartitionProgress progress = tx.progress();
        Set<String> requestIds = new LinkedHashSet<>();
        Set<String> resources = new LinkedHashSet<>();
        for (int i = 0; i < records.size(); i++) {
            if (triaged.get(i) instanceof Triaged.Apply apply) {
                requestIds.add(apply.command().requestId());
                if (records.get(i).offset() >= progress.nextOffset()) {
                    resources.add(apply.command().resource());
                }
            }
        }
        Map<String, StoredReply> known = new HashMap<>(tx.storedReplies(requestIds));
        Map<String, Lease> leases = tx.leasesForUpdate(resources);
        // Only a resource without a row can need the floor; read after the leases (see tokenFloor).
        long tokenFloor = leases.keySet().containsAll(resources) ? 0 : tx.tokenFloor();
        LeaseLedger ledger = new LeaseLedger(leases, tokenFloor);
        CommandClock commandClock = new CommandClock(progress.lastNow());
        Instant workerNow = clock.instant();
        List<StoredReply> newReplies = new ArrayList<>();
        List<Outbound> out = new ArrayList<>(records.size());
        long nextOffset = progress.nextOffset();
        for (int i = 0; i < records.size(); i++) {
            Inbound record = records.get(i);
            boolean fresh = record.offset() >= progress.nextOffset();
            Triaged t = triaged.get(i);
            if (t instanceof Triaged.DeadLetter dead) {
                LOG.warn("dead-lettering {}: {}", record.position(), dead.reason());
                out.add(new Outbound.DeadLetter(record, dead.reason()));
            } else if (t instanceof Triaged.Reject reject) {
                LOG.info("invalid command at {} (request_id {}): {}", record.position(),
                        reject.requestId(), reject.rejection().problem().detail());
                out.add(reject.reply(ReplyEncoder.encode(reject.rejection())));
            } else if (t instanceof Triaged.Apply apply) {
                Command command = apply.command();
                String fingerprint = Fingerprint.of(command);
                StoredReply prior = known.get(command.requestId());
                if (prior != null) {
                    out.add(apply.reply(replayed(record, prior, command, fingerprint)));
                } else if (!fresh) {
                    String reason = "already applied, but its reply is no longer stored";
                    LOG.warn("dead-lettering {} (request_id {}): {}", record.position(), command.requestId(), reason);
                    out.add(new Outbound.DeadLetter(record, reason));
                } else {
                    Instant now = commandClock.next(record.logAppendTime(), workerNow);
                    Decision decision = ledger.apply(command, now);
                    byte[] value = ReplyEncoder.encode(new Reply.Decided(command, decision.verdict()));
                    StoredReply stored = new StoredReply(command.requestId(), fingerprint,
                            new String(value, StandardCharsets.UTF_8), partition, record.offset(), now);
                    known.put(command.requestId(), stored);
                    newReplies.add(stored);
                    out.add(apply.reply(value));
                }
            }
            if (fresh) {
                nextOffset = record.offset() + 1;
            }
        }
        if (nextOffset != progress.nextOffset()) {
            tx.save(ledger.writes(), newReplies, new PartitionProgress(nextOffset, commandClock.last()));
        }
        return out;
    }

    private static byte[] replayed(Inbound record, StoredReply prior, Command command, String fingerprint) {
        if (prior.fingerprint().equals(fingerprint)) {
            LOG.debug("{}: request_id {} was applied at {}; sending its stored reply again", record.position(),
                    command.requestId(), prior.partition() + "@" + prior.offset());
            return prior.reply().getBytes(StandardCharsets.UTF_8);
        }
        LOG.warn("{}: request_id {} reused for a different command; first applied at {}", record.position(),
                command.requestId(), prior.partition() + "@" + prior.offset());
        return ReplyEncoder.encode(Reply.Rejected.reusedRequestId(command));
    }
}
